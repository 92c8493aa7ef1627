/**
 * The verified-token memo (issue #17) skips the RS256 check for a token that
 * verified before; each rule it must keep is asserted on /users/me: a token
 * one character off is still verified (and refused), the clock still expires
 * a remembered token, a clock set back before its iat refuses it, and a
 * revoked session is refused even though its token is remembered.
 */
import { describe, expect, it } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';

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
