/**
 * The verified-token memo skips the RS256 check for a token that
 * verified before; each rule it must keep is asserted on /users/me: a token
 * one character off is still verified (and refused), the clock still expires
 * a remembered token, a clock set back before its iat refuses it, and a
 * revoked session is refused even though its token is remembered.
 */
import { importSPKI, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { signAccessToken, signEphemeralToken, verifyApiToken } from '../../../src/crypto/jwt.js';
import { rememberedCount, rememberedPayload, rememberPayload } from '../../../src/crypto/verified-tokens.js';
import { generateRsaPem, loadProductionKeys, type KeyStore } from '../../../src/crypto/keys.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';

async function keyStore(kid: string): Promise<{ keys: KeyStore; publicPem: string }> {
  const { privatePem, publicPem } = await generateRsaPem();
  const keys = await loadProductionKeys({
    activeKid: kid,
    privatePem,
    publicKeysJson: JSON.stringify({ keys: [{ kid, pem: publicPem }] }),
  });
  return { keys, publicPem };
}

const ACCESS_TTL_MS = 15 * 60_000; // ACCESS_TOKEN_TTL in the test env
const SKEW_MS = 30_000;

/** Flips one character of the signature (the last segment). */
function tampered(token: string): string {
  const i = token.length - 5;
  return token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
}

describe('verified-token memo', () => {
  it('refuses a token whose signature differs from a remembered one', async () => {
    const t = await makeApi({ env: { DISABLE_AUTH_RATE_LIMITS: 'true' } });
    const session = await signIn(t, await createUser(t));
    expect((await t.call('GET', '/users/me', { token: session.token })).status).toBe(200);
    const forged = tampered(session.token);
    expect(forged).not.toBe(session.token);
    const res = await t.call('GET', '/users/me', { token: forged });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('refuses a remembered token once the clock passes its exp (plus the skew)', async () => {
    const t = await makeApi({ env: { DISABLE_AUTH_RATE_LIMITS: 'true', SESSION_IDLE_TTL: '1d' } });
    const session = await signIn(t, await createUser(t));
    expect((await t.call('GET', '/users/me', { token: session.token })).status).toBe(200);
    t.clock.advance(ACCESS_TTL_MS + SKEW_MS - 1000);
    expect((await t.call('GET', '/users/me', { token: session.token })).status).toBe(200);
    t.clock.advance(2000);
    expect((await t.call('GET', '/users/me', { token: session.token })).status).toBe(401);
  });

  it('refuses a remembered token when the clock is set back before its iat (beyond the skew)', async () => {
    const t = await makeApi({ env: { DISABLE_AUTH_RATE_LIMITS: 'true' } });
    const session = await signIn(t, await createUser(t));
    expect((await t.call('GET', '/users/me', { token: session.token })).status).toBe(200);
    t.clock.set(t.clock.now() - SKEW_MS - 2000);
    expect((await t.call('GET', '/users/me', { token: session.token })).status).toBe(401);
  });

  it('still reads the session: a remembered token of a revoked session is refused', async () => {
    const t = await makeApi({ env: { DISABLE_AUTH_RATE_LIMITS: 'true' } });
    const session = await signIn(t, await createUser(t));
    expect((await t.call('GET', '/users/me', { token: session.token })).status).toBe(200);
    expect((await t.call('DELETE', '/logout', { token: session.token })).status).toBeLessThan(300);
    expect((await t.call('GET', '/users/me', { token: session.token })).status).toBe(401);
  });
});

/**
 * Tokens the API signs are remembered at signing time (the next step of a
 * sign-in presents them at once); each rule is asserted on the token as the
 * client gets it, before anything verified it.
 */
describe('verified-token memo: tokens this API signed', () => {
  const ISSUER = 'http://auth.test';
  const NOW = 1_800_000_000_000;

  it('yields exactly the payload RS256 verification yields', async () => {
    const { keys, publicPem } = await keyStore('k1');
    const token = await signAccessToken(
      keys,
      {
        sub: 'u1',
        sid: 's1',
        roles: ['user'],
        orgId: 'o1',
        auth: { acr: 'urn:svc:acr:session', auth_time: 1, amr: ['otp'] },
      },
      900,
      { issuer: ISSUER, nowMs: NOW },
    );
    const { payload } = await jwtVerify(token, await importSPKI(publicPem, 'RS256'), {
      issuer: ISSUER,
      audience: ISSUER,
      currentDate: new Date(NOW),
    });
    expect(await verifyApiToken(keys, token, { issuer: ISSUER, nowMs: NOW })).toEqual(payload);
  });

  it('refuses a just-signed token one character off, or checked against another key set or issuer', async () => {
    const { keys } = await keyStore('k1');
    const other = await keyStore('k1');
    const token = await signEphemeralToken(
      keys,
      { sub: 'u1', ctx: 'login', jti: 'a1' },
      { issuer: ISSUER, nowMs: NOW },
    );
    expect(await verifyApiToken(keys, tampered(token), { issuer: ISSUER, nowMs: NOW })).toBeNull();
    expect(await verifyApiToken(other.keys, token, { issuer: ISSUER, nowMs: NOW })).toBeNull();
    expect(await verifyApiToken(keys, token, { issuer: 'http://other.test', nowMs: NOW })).toBeNull();
    expect((await verifyApiToken(keys, token, { issuer: ISSUER, nowMs: NOW }))?.sub).toBe('u1');
  });

  it('applies the clock to a just-signed token: refused past exp + skew and before iat − skew', async () => {
    const { keys } = await keyStore('k1');
    const token = await signEphemeralToken(
      keys,
      { sub: 'u1', ctx: 'login', jti: 'a1' },
      { issuer: ISSUER, nowMs: NOW },
    );
    expect(await verifyApiToken(keys, token, { issuer: ISSUER, nowMs: NOW + 300_000 + SKEW_MS - 1000 })).not.toBeNull();
    expect(await verifyApiToken(keys, token, { issuer: ISSUER, nowMs: NOW + 300_000 + SKEW_MS })).toBeNull();
    expect(await verifyApiToken(keys, token, { issuer: ISSUER, nowMs: NOW - SKEW_MS - 1000 })).toBeNull();
  });

  it('refuses the sign-in step after /login with a tampered or expired ephemeral token', async () => {
    const t = await makeApi({ env: { DISABLE_AUTH_RATE_LIMITS: 'true' } });
    const user = await createUser(t);
    const login = await t.call('POST', '/login', { body: { identifier: user.email } });
    expect(login.status).toBe(200);
    expect(
      (await t.call('POST', '/otp/generate-login-email-otp', { token: tampered(login.body.token), body: {} })).status,
    ).toBe(401);
    t.clock.advance(300_000 + SKEW_MS);
    expect((await t.call('POST', '/otp/generate-login-email-otp', { token: login.body.token, body: {} })).status).toBe(
      401,
    );
  });
});

describe('verified-token memo: bound', () => {
  it('keeps at most 10,000 tokens per key set, dropping the oldest first', () => {
    const keys = {} as KeyStore;
    for (let i = 0; i < 12_345; i++) rememberPayload(keys, 'iss', `t${i}`, { sub: String(i) });
    expect(rememberedCount(keys)).toBeLessThanOrEqual(10_000);
    expect(rememberedCount(keys)).toBeGreaterThanOrEqual(5_000);
    expect(rememberedPayload(keys, 'iss', 't0')).toBeUndefined();
    expect(rememberedPayload(keys, 'iss', 't12344')?.sub).toBe('12344');
    expect(rememberedPayload(keys, 'iss', 't7500')?.sub).toBe('7500');
    expect(rememberedPayload({} as KeyStore, 'iss', 't12344')).toBeUndefined();
  });
});
