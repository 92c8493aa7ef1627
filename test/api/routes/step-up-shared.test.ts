/**
 * TOTP step-up and passkey step-up share the session's freshness fields
 * (contract §3.11, §3.12): either one shows in /step-up/status, the
 * newer one wins, and freshness belongs to the session, not to the user.
 */
import { describe, expect, it } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';
import { assertWith, registerPasskey } from '../../helpers/passkeys.js';
import { codeAt, enrollTotp, STEP_ALIGNED_START_MS, STEP_MS, totpEnv } from '../../helpers/totp.js';

describe('shared step-up freshness', () => {
  it('a TOTP step-up shows in /step-up/status, a later passkey step-up replaces it, and another session stays stale', async () => {
    const t = await makeApi({ env: totpEnv, clockStartMs: STEP_ALIGNED_START_MS });
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const other = await signIn(t, user);
    const secret = await enrollTotp(t, token);
    // Adding a passkey once TOTP is on needs a fresh step-up (+SU?); then let it go stale.
    t.clock.advance(STEP_MS);
    expect(
      (await t.call('POST', '/totp/verify-mfa', { token, body: { code: codeAt(secret, t.clock.now()) } })).status,
    ).toBe(200);
    const { authenticator, finish: enrolled } = await registerPasskey(t, token);
    expect(enrolled.status).toBe(200);
    t.clock.advance(10 * STEP_MS);
    const stale = (await t.call('GET', '/step-up/status', { token })).body;
    expect(stale).toMatchObject({ fresh: false, method: 'totp' });

    expect((await t.call('GET', '/step-up/status', { token: other.token })).body).toEqual({
      fresh: false,
      method: null,
      verifiedAt: null,
      expiresAt: null,
      maxAgeSeconds: 300,
    });
    const totp = await t.call('POST', '/totp/verify-mfa', { token, body: { code: codeAt(secret, t.clock.now()) } });
    expect(totp.status).toBe(200);
    const totpAt = new Date(t.clock.now());
    expect((await t.call('GET', '/step-up/status', { token })).body).toEqual({
      fresh: true,
      method: 'totp',
      verifiedAt: totpAt.toISOString(),
      expiresAt: new Date(totpAt.getTime() + 300_000).toISOString(),
      maxAgeSeconds: 300,
    });
    // Freshness is per session: the user's other session did not step up.
    expect((await t.call('GET', '/step-up/status', { token: other.token })).body.fresh).toBe(false);

    t.clock.advance(200_000);
    const { finish } = await assertWith(t, '/step-up/webauthn', token, authenticator);
    expect(finish.status).toBe(200);
    const passkeyAt = new Date(t.clock.now());
    expect((await t.call('GET', '/step-up/status', { token })).body).toMatchObject({
      fresh: true,
      method: 'webauthn',
      verifiedAt: passkeyAt.toISOString(),
    });
    // The newer step-up restarts the 300 s: still fresh after the TOTP one would have expired.
    t.clock.advance(150_000);
    expect((await t.call('GET', '/step-up/status', { token })).body).toMatchObject({ fresh: true, method: 'webauthn' });
    // And a +SU? route (TOTP re-enrolment) accepts the passkey freshness.
    expect((await t.call('POST', '/totp/enroll/start', { token })).status).toBe(200);
  });
});
