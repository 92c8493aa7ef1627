import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, authFailures, totpCredentials } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, TEST_SERVICE_TOKEN } from '../../helpers/make-app.js';
import { openSecret } from '../../../src/crypto/secret-box.js';
import { Secret } from 'otpauth';
import {
  codeAt,
  enrollTotp,
  generatorFromUrl,
  STEP_ALIGNED_START_MS,
  STEP_MS,
  totpEnv,
  wrongCodeAt,
} from '../../helpers/totp.js';

async function setup(env: Record<string, string> = totpEnv) {
  const t = await makeApi({ env, clockStartMs: STEP_ALIGNED_START_MS });
  const user = await createUser(t);
  const session = await signIn(t, user);
  return { t, user, session, token: session.token };
}

const eventTypes = async (t: Awaited<ReturnType<typeof makeApi>>, userId: string) =>
  (await t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, userId))).map((e) => e.type);

describe('TOTP enrollment', () => {
  it('starts with the contract fields (§3.12), then a valid code enables it and status reflects it', async () => {
    const { t, user, token } = await setup();
    expect((await t.call('GET', '/totp/status', { token })).body).toEqual({
      enabled: false,
      verifiedAt: null,
      lastUsedAt: null,
    });

    const start = await t.call('POST', '/totp/enroll/start', { token });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({
      message: 'Success',
      issuer: 'svc test',
      accountName: user.email,
      algorithm: 'SHA1',
      digits: 6,
      period: 30,
    });
    expect(start.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(start.body.otpauthUrl).toBe(
      `otpauth://totp/svc%20test:${encodeURIComponent(user.email)}?secret=${start.body.secret}&issuer=svc%20test&algorithm=SHA1&digits=6&period=30`,
    );
    // Pending is not enabled yet.
    expect((await t.call('GET', '/totp/status', { token })).body.enabled).toBe(false);

    const verify = await t.call('POST', '/totp/enroll/verify', {
      token,
      body: { code: codeAt(start.body.secret, t.clock.now()) },
    });
    expect(verify.status).toBe(200);
    expect(verify.body).toEqual({ message: 'Success' });
    const status = await t.call('GET', '/totp/status', { token });
    expect(status.body).toEqual({
      enabled: true,
      verifiedAt: new Date(t.clock.now()).toISOString(),
      lastUsedAt: new Date(t.clock.now()).toISOString(),
    });
    expect(JSON.stringify(status.body)).not.toContain(start.body.secret);
    expect(await eventTypes(t, user.id)).toEqual(
      expect.arrayContaining(['totp_enrollment_started', 'totp_enrollment_success']),
    );
  });

  it('round-trips the otpauth URL into a generator whose codes are accepted', async () => {
    const { t, token } = await setup();
    const start = await t.call('POST', '/totp/enroll/start', { token });
    const generator = generatorFromUrl(start.body.otpauthUrl);
    expect(generator.issuer).toBe('svc test');
    expect(generator.algorithm).toBe('SHA1');
    expect(generator.digits).toBe(6);
    expect(generator.period).toBe(30);
    expect(generator.secret.base32).toBe(start.body.secret);
    const code = generator.generate({ timestamp: t.clock.now() });
    expect((await t.call('POST', '/totp/enroll/verify', { token, body: { code } })).status).toBe(200);
    t.clock.advance(STEP_MS);
    const next = generator.generate({ timestamp: t.clock.now() });
    expect((await t.call('POST', '/totp/verify-mfa', { token, body: { code: next } })).status).toBe(200);
  });

  it('refuses a wrong enrollment code with 403 and keeps TOTP disabled', async () => {
    const { t, user, token } = await setup();
    const start = await t.call('POST', '/totp/enroll/start', { token });
    const res = await t.call('POST', '/totp/enroll/verify', {
      token,
      body: { code: wrongCodeAt(start.body.secret, t.clock.now()) },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'totp_verification_failed', message: 'Invalid TOTP code' });
    expect((await t.call('GET', '/totp/status', { token })).body.enabled).toBe(false);
    const failures = await t.api.deps.db.select().from(authFailures).where(eq(authFailures.subject, user.id));
    expect(failures.map((f) => f.type)).toEqual(['totp_failed']);
  });

  it('only accepts the newest pending enrollment; an older secret no longer verifies', async () => {
    const { t, token } = await setup();
    const first = await t.call('POST', '/totp/enroll/start', { token });
    const second = await t.call('POST', '/totp/enroll/start', { token });
    expect(second.body.secret).not.toBe(first.body.secret);
    expect(
      (await t.call('POST', '/totp/enroll/verify', { token, body: { code: codeAt(first.body.secret, t.clock.now()) } }))
        .status,
    ).toBe(403);
    expect(
      (
        await t.call('POST', '/totp/enroll/verify', {
          token,
          body: { code: codeAt(second.body.secret, t.clock.now()) },
        })
      ).status,
    ).toBe(200);
  });

  it('rejects a pending enrollment older than one hour', async () => {
    const { t, user, token } = await setup();
    const start = await t.call('POST', '/totp/enroll/start', { token });
    t.clock.advance(60 * 60 * 1000 + STEP_MS);
    const fresh = (await signIn(t, user)).token; // the first access token expired meanwhile
    const res = await t.call('POST', '/totp/enroll/verify', {
      token: fresh,
      body: { code: codeAt(start.body.secret, t.clock.now()) },
    });
    expect(res.status).toBe(403);
  });

  it('requires fresh step-up to re-enroll once TOTP is enabled, and keeps one enabled row per user', async () => {
    const { t, user, token } = await setup();
    const oldSecret = await enrollTotp(t, token);
    t.clock.advance(301_000); // the enrollment itself does not make the session fresh; be explicit anyway
    const refused = await t.call('POST', '/totp/enroll/start', { token });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'step_up_required', fresh: false, maxAgeSeconds: 300 });

    expect(
      (await t.call('POST', '/totp/verify-mfa', { token, body: { code: codeAt(oldSecret, t.clock.now()) } })).status,
    ).toBe(200);
    const start = await t.call('POST', '/totp/enroll/start', { token });
    expect(start.status).toBe(200);
    t.clock.advance(STEP_MS);
    expect(
      (await t.call('POST', '/totp/enroll/verify', { token, body: { code: codeAt(start.body.secret, t.clock.now()) } }))
        .status,
    ).toBe(200);

    const rows = await t.api.deps.db.select().from(totpCredentials).where(eq(totpCredentials.userId, user.id));
    expect(rows.filter((r) => r.enabled)).toHaveLength(1);
    t.clock.advance(STEP_MS);
    // The replaced secret is no longer accepted.
    expect(
      (await t.call('POST', '/totp/verify-mfa', { token, body: { code: codeAt(oldSecret, t.clock.now()) } })).status,
    ).toBe(403);
    expect(
      (await t.call('POST', '/totp/verify-mfa', { token, body: { code: codeAt(start.body.secret, t.clock.now()) } }))
        .status,
    ).toBe(200);
  });

  it('stores an encrypted secret, never the base32 secret, and never logs it', async () => {
    const { t, user, token } = await setup();
    const secret = await enrollTotp(t, token);
    const [row] = await t.api.deps.db.select().from(totpCredentials).where(eq(totpCredentials.userId, user.id));
    expect(row!.secretCiphertext).not.toContain(secret);
    expect(row!.secretIv).not.toContain(secret);
    // 20 bytes of secret + 16 bytes of GCM tag.
    expect(atob(row!.secretCiphertext)).toHaveLength(36);
    expect(atob(row!.secretIv)).toHaveLength(12);
    const everything = JSON.stringify(t.logs) + JSON.stringify(await t.api.deps.db.select().from(authEvents));
    expect(everything).not.toContain(secret);
  });
});

describe('TOTP secret at rest (contract §1.8)', () => {
  it('the stored row decrypts to the enrolled secret only with the configured key and the owner’s user id', async () => {
    const key = 'totp-at-rest-key-0123456789abcdef-0123';
    const { t, user, token } = await setup({ ...totpEnv, TOTP_SECRET_ENCRYPTION_KEY: key });
    const other = await createUser(t);
    const secret = await enrollTotp(t, token);
    const [row] = await t.api.deps.db.select().from(totpCredentials).where(eq(totpCredentials.userId, user.id));
    const sealed = { ciphertext: row!.secretCiphertext, iv: row!.secretIv };
    expect(row!.secretCiphertext).not.toContain(secret);
    expect(await openSecret(key, user.id, sealed)).toEqual(Secret.fromBase32(secret).bytes);
    expect(await openSecret(key, other.id, sealed)).toBeNull();
    // Not the API_SERVICE_TOKEN fallback once TOTP_SECRET_ENCRYPTION_KEY is set, and no other key.
    expect(await openSecret(TEST_SERVICE_TOKEN, user.id, sealed)).toBeNull();
    expect(await openSecret(`${key}x`, user.id, sealed)).toBeNull();
  });

  it('falls back to API_SERVICE_TOKEN as the key when TOTP_SECRET_ENCRYPTION_KEY is unset', async () => {
    const { t, user, token } = await setup();
    const secret = await enrollTotp(t, token);
    const [row] = await t.api.deps.db.select().from(totpCredentials).where(eq(totpCredentials.userId, user.id));
    expect(
      await openSecret(TEST_SERVICE_TOKEN, user.id, { ciphertext: row!.secretCiphertext, iv: row!.secretIv }),
    ).toEqual(Secret.fromBase32(secret).bytes);
  });
});

describe('TOTP verification window and replay', () => {
  async function enrolled() {
    const s = await setup();
    const secret = await enrollTotp(s.t, s.token);
    s.t.clock.advance(10 * STEP_MS); // move past the counter spent by enrollment
    return { ...s, secret };
  }

  it.each([
    ['previous', -1],
    ['current', 0],
    ['next', 1],
  ])('accepts the %s step', async (_name, delta) => {
    const { t, token, secret } = await enrolled();
    const res = await t.call('POST', '/totp/verify-mfa', {
      token,
      body: { code: codeAt(secret, t.clock.now() + delta * STEP_MS) },
    });
    expect(res.status).toBe(200);
  });

  it.each([
    ['two steps back', -2],
    ['two steps ahead', 2],
  ])('refuses a code %s', async (_name, delta) => {
    const { t, token, secret } = await enrolled();
    const code = codeAt(secret, t.clock.now() + delta * STEP_MS);
    // Guard: the code must not accidentally collide with a code inside the window.
    for (const d of [-1, 0, 1]) expect(code).not.toBe(codeAt(secret, t.clock.now() + d * STEP_MS));
    const res = await t.call('POST', '/totp/verify-mfa', { token, body: { code } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('totp_verification_failed');
  });

  it('refuses the same code twice, and an older step after a newer one was used', async () => {
    const { t, user, token, secret } = await enrolled();
    const code = codeAt(secret, t.clock.now());
    expect((await t.call('POST', '/totp/verify-mfa', { token, body: { code } })).status).toBe(200);
    const replay = await t.call('POST', '/totp/verify-mfa', { token, body: { code } });
    expect(replay.status).toBe(403);
    // Its own code, so the demo can say "wait for the next code" instead of "not valid".
    expect(replay.body).toEqual({
      error: 'totp_code_already_used',
      message: 'That code was already used; wait for the next one',
    });
    const previous = codeAt(secret, t.clock.now() - STEP_MS);
    const older = await t.call('POST', '/totp/verify-mfa', { token, body: { code: previous } });
    expect(older.status).toBe(403);
    expect(older.body.error).toBe('totp_code_already_used');
    // A wrong code still answers the generic failure: only a correct, spent code says "already used".
    const wrong = await t.call('POST', '/totp/verify-mfa', {
      token,
      body: { code: wrongCodeAt(secret, t.clock.now()) },
    });
    expect(wrong.body.error).toBe('totp_verification_failed');
    const failed = (await t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, user.id))).filter(
      (e) => e.type === 'totp_failed',
    );
    // A replay still counts toward the lockout like any failed code.
    expect(failed.map((e) => (e.metadata as { reason: string }).reason)).toEqual(['replay', 'replay', 'invalid_code']);
  });

  it('lets only one of two concurrent uses of the same code pass', async () => {
    const { t, token, secret } = await enrolled();
    const code = codeAt(secret, t.clock.now());
    const results = await Promise.all(
      [1, 2, 3].map(() => t.call('POST', '/totp/verify-mfa', { token, body: { code } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 403, 403]);
  });

  it('treats a malformed code as a failed verification', async () => {
    const { t, token } = await enrolled();
    for (const code of ['12345', '1234567', 'abcdef', ' 123456']) {
      const res = await t.call('POST', '/totp/verify-mfa', { token, body: { code } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'totp_verification_failed', message: 'Invalid TOTP code' });
    }
    expect((await t.call('POST', '/totp/verify-mfa', { token, body: {} })).status).toBe(400);
    expect((await t.call('POST', '/totp/verify-mfa', { token, body: { code: 123456 } })).status).toBe(400);
  });

  it('locks the account after ten wrong codes: 423 with retryAfterSeconds, even for a valid code', async () => {
    const { t, user, token, secret } = await enrolled();
    for (let i = 0; i < 10; i++) {
      const res = await t.call('POST', '/totp/verify-mfa', {
        token,
        body: { code: wrongCodeAt(secret, t.clock.now()) },
      });
      expect(res.status).toBe(403);
    }
    const locked = await t.call('POST', '/totp/verify-mfa', { token, body: { code: codeAt(secret, t.clock.now()) } });
    expect(locked.status).toBe(423);
    expect(locked.body).toEqual({ error: 'account_locked', message: expect.any(String), retryAfterSeconds: 900 });
    expect(locked.headers.get('retry-after')).toBe('900');
    // Nothing is counted while locked.
    const failures = await t.api.deps.db.select().from(authFailures).where(eq(authFailures.subject, user.id));
    expect(failures).toHaveLength(10);
    expect(await eventTypes(t, user.id)).toEqual(expect.arrayContaining(['account_locked', 'login_suspicious']));

    t.clock.advance(900_000);
    const later = (await signIn(t, user)).token; // the first access token expired meanwhile
    expect(
      (await t.call('POST', '/totp/verify-mfa', { token: later, body: { code: codeAt(secret, t.clock.now()) } }))
        .status,
    ).toBe(200);
  });

  it('applies the TOTP per-flow limiter: the sixth attempt in 15 minutes gets 429', async () => {
    const { t, token } = await setup({});
    const start = await t.call('POST', '/totp/enroll/start', { token });
    const wrong = wrongCodeAt(start.body.secret, t.clock.now());
    for (let i = 0; i < 5; i++)
      expect((await t.call('POST', '/totp/enroll/verify', { token, body: { code: wrong } })).status).toBe(403);
    const limited = await t.call('POST', '/totp/enroll/verify', {
      token,
      body: { code: codeAt(start.body.secret, t.clock.now()) },
    });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'rate_limited', retryAfterSeconds: expect.any(Number) });
  });

  it('counts a credential that no longer decrypts as a failure and flags it suspicious', async () => {
    const { t, user, token, secret } = await enrolled();
    // Simulate a changed TOTP_SECRET_ENCRYPTION_KEY: a second API on the same database with another key.
    const other = await makeApi({
      env: { ...totpEnv, TOTP_SECRET_ENCRYPTION_KEY: 'another-totp-key-0123456789abcdef-xyz' },
      client: t.client,
      clockStartMs: t.clock.now(),
    });
    const res = await other.call('POST', '/totp/verify-mfa', {
      token,
      body: { code: codeAt(secret, other.clock.now()) },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('totp_verification_failed');
    const types = (await t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, user.id))).map(
      (e) => e.type,
    );
    expect(types).toEqual(expect.arrayContaining(['totp_suspicious', 'totp_failed']));
  });
});

describe('POST /totp/verify-mfa', () => {
  it('makes the session step-up fresh with method totp, and the freshness expires after 300 s', async () => {
    const { t, user, token } = await setup();
    const secret = await enrollTotp(t, token);
    t.clock.advance(STEP_MS);
    const res = await t.call('POST', '/totp/verify-mfa', { token, body: { code: codeAt(secret, t.clock.now()) } });
    const verifiedAt = new Date(t.clock.now()).toISOString();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Success',
      fresh: true,
      method: 'totp',
      verifiedAt,
      expiresAt: new Date(t.clock.now() + 300_000).toISOString(),
      maxAgeSeconds: 300,
    });
    expect(await eventTypes(t, user.id)).toContain('mfa_otp_success');

    // Fresh: the +SU? gate on enroll/start lets the call through.
    t.clock.advance(299_000);
    expect((await t.call('POST', '/totp/enroll/start', { token })).status).toBe(200);
    t.clock.advance(1_000);
    const stale = await t.call('POST', '/totp/enroll/start', { token });
    expect(stale.status).toBe(403);
    expect(stale.body).toMatchObject({
      error: 'step_up_required',
      fresh: false,
      method: 'totp',
      verifiedAt,
      maxAgeSeconds: 300,
    });
  });

  it('answers 403 step_up_unavailable when TOTP is not enabled', async () => {
    const { t, token } = await setup();
    const res = await t.call('POST', '/totp/verify-mfa', { token, body: { code: '123456' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('step_up_unavailable');
  });

  it('writes mfa_otp_failed and totp_failed on a wrong code', async () => {
    const { t, user, token } = await setup();
    const secret = await enrollTotp(t, token);
    t.clock.advance(STEP_MS);
    expect(
      (await t.call('POST', '/totp/verify-mfa', { token, body: { code: wrongCodeAt(secret, t.clock.now()) } })).status,
    ).toBe(403);
    expect(await eventTypes(t, user.id)).toEqual(expect.arrayContaining(['mfa_otp_failed', 'totp_failed']));
  });

  it('requires an access token', async () => {
    const { t } = await setup();
    expect((await t.call('POST', '/totp/verify-mfa', { body: { code: '123456' } })).status).toBe(401);
    expect((await t.call('GET', '/totp/status')).status).toBe(401);
  });
});

describe('the code still on screen right after enrolment', () => {
  it('a step-up with the code that just turned TOTP on answers totp_code_already_used; the next step passes', async () => {
    const { t, token } = await setup();
    const secret = await enrollTotp(t, token);
    const same = await t.call('POST', '/totp/verify-mfa', { token, body: { code: codeAt(secret, t.clock.now()) } });
    expect(same.status).toBe(403);
    expect(same.body).toEqual({
      error: 'totp_code_already_used',
      message: 'That code was already used; wait for the next one',
    });
    t.clock.advance(STEP_MS);
    expect(
      (await t.call('POST', '/totp/verify-mfa', { token, body: { code: codeAt(secret, t.clock.now()) } })).status,
    ).toBe(200);
  });
});

describe('POST /totp/disable', () => {
  it('refuses a code that was already spent (replay) and keeps TOTP enabled', async () => {
    const { t, token } = await setup();
    const secret = await enrollTotp(t, token);
    t.clock.advance(STEP_MS);
    const code = codeAt(secret, t.clock.now());
    expect((await t.call('POST', '/totp/verify-mfa', { token, body: { code } })).status).toBe(200);
    const replay = await t.call('POST', '/totp/disable', { token, body: { code } });
    expect(replay.status).toBe(403);
    expect(replay.body.error).toBe('totp_code_already_used');
    expect((await t.call('GET', '/totp/status', { token })).body.enabled).toBe(true);
  });

  it('answers 403 when TOTP is not enabled', async () => {
    const { t, token } = await setup();
    const res = await t.call('POST', '/totp/disable', { token, body: { code: '123456' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('totp_verification_failed');
  });

  it('requires a valid current code, then deletes the credential and the user can still sign in without TOTP', async () => {
    const { t, user, token } = await setup();
    const secret = await enrollTotp(t, token);
    t.clock.advance(STEP_MS);

    const wrong = await t.call('POST', '/totp/disable', { token, body: { code: wrongCodeAt(secret, t.clock.now()) } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error).toBe('totp_verification_failed');
    expect((await t.call('POST', '/totp/disable', { token, body: {} })).status).toBe(400);
    expect((await t.call('GET', '/totp/status', { token })).body.enabled).toBe(true);

    const ok = await t.call('POST', '/totp/disable', { token, body: { code: codeAt(secret, t.clock.now()) } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: 'Success' });
    expect((await t.call('GET', '/totp/status', { token })).body).toEqual({
      enabled: false,
      verifiedAt: null,
      lastUsedAt: null,
    });
    expect(await t.api.deps.db.select().from(totpCredentials).where(eq(totpCredentials.userId, user.id))).toHaveLength(
      0,
    );
    expect(await eventTypes(t, user.id)).toContain('totp_disabled');

    // Other methods sign in directly again: no MFA step.
    const { issueSession } = await import('../../../src/services/session/issuance.js');
    const { testClient } = await import('../../helpers/factories.js');
    const again = await issueSession(t.api.deps, { user, method: 'email_otp', client: testClient() });
    expect('mfaRequired' in again).toBe(false);
    // And the old secret is useless.
    expect(
      (await t.call('POST', '/totp/disable', { token, body: { code: codeAt(secret, t.clock.now() + STEP_MS) } }))
        .status,
    ).toBe(403);
  });
});
