/**
 * OAuth login CSRF: the flow is bound to the caller that
 * started it. Start returns a random `binding`; the signed state carries its
 * SHA-256; the callback must present the binding. An attacker who starts a
 * flow, signs in at the provider as himself and hands the victim the callback
 * URL (`code` + `state`) gets nowhere: the victim's callback has no binding or
 * another one → 400 `oauth_invalid_state`, the provider's token endpoint is
 * never called, and the state is NOT consumed (the binding is checked before
 * the single-use insert), so a foreign caller cannot burn a flow either; its
 * initiator still completes it. Runs against the real test OpenID provider.
 */
import { describe, expect, it } from 'vitest';
import { fromBase64Url, fromUtf8, toBase64Url } from '../../helpers/bytes.js';
import { sha256 } from '../../../src/crypto/hash.js';
import { authEvents, oauthConsumedStates, sessions } from '../../../src/db/schema.js';
import { makeOAuthApi, oidcProviderForFile } from '../../helpers/oauth.js';
import type { TestApi } from '../../helpers/make-app.js';

const oidc = oidcProviderForFile('csrf');
const account = () => oidc.account();
const INVALID_STATE = { error: 'oauth_invalid_state', message: 'Invalid OAuth state' };

/** The attacker's half: start, sign in at the provider as himself; returns his code, state and binding. */
async function attackerFlow(t: TestApi) {
  const start = await t.call('POST', '/oauth/testop/start', { body: {} });
  expect(start.status).toBe(200);
  const { code, state } = await oidc.op.authorize(start.body.authorizationUrl, account());
  return { code, state, binding: start.body.binding as string };
}

const failureReasons = async (t: TestApi) =>
  (await t.api.deps.db.select().from(authEvents))
    .filter((e) => e.type === 'oauth_login_failed')
    .map((e) => (e.metadata as { reason: string }).reason);

describe('OAuth start: flow binding', () => {
  it('returns a fresh 32-byte base64url binding whose SHA-256 the signed state carries; the binding itself is in neither state nor URL', async () => {
    const t = await makeOAuthApi(oidc.op);
    const a = await t.call('POST', '/oauth/testop/start', { body: {} });
    const b = await t.call('POST', '/oauth/testop/start', { body: {} });
    expect(a.status).toBe(200);
    expect(a.body.binding).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fromBase64Url(a.body.binding)).toHaveLength(32);
    expect(b.body.binding).not.toBe(a.body.binding);
    const payload = JSON.parse(fromUtf8(fromBase64Url(a.body.state.split('.')[0])));
    expect(payload.bindingHash).toBe(toBase64Url(sha256(a.body.binding)));
    expect(a.body.state).not.toContain(a.body.binding);
    expect(a.body.authorizationUrl).not.toContain(a.body.binding);
  });
});

describe('OAuth callback: flow binding', () => {
  it('refuses a callback without the binding with oauth_invalid_state, before any token exchange, and leaves the state unspent', async () => {
    const t = await makeOAuthApi(oidc.op);
    const { code, state, binding } = await attackerFlow(t);
    const before = oidc.op.tokenRequests();
    const res = await t.call('POST', '/oauth/testop/callback', { body: { code, state } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(INVALID_STATE);
    expect(oidc.op.tokenRequests()).toBe(before);
    expect(await t.api.deps.db.select().from(oauthConsumedStates)).toHaveLength(0);
    expect(await t.api.deps.db.select().from(sessions)).toHaveLength(0);
    expect(await failureReasons(t)).toEqual(['binding_missing']);
    // The initiator still finishes the flow: nothing was consumed.
    const own = await t.call('POST', '/oauth/testop/callback', { body: { code, state, binding } });
    expect(own.status).toBe(200);
    expect(own.body.message).toBe('Success');
  });

  it("refuses the attacker's code and state with the victim's own binding (login CSRF), without calling the provider", async () => {
    const t = await makeOAuthApi(oidc.op);
    const attacker = await attackerFlow(t);
    // The victim's browser holds the binding of a flow it started itself (or any other binding).
    const victimStart = await t.call('POST', '/oauth/testop/start', { body: {} });
    const before = oidc.op.tokenRequests();
    for (const binding of [
      victimStart.body.binding,
      toBase64Url(new Uint8Array(32)),
      '',
      'x'.repeat(43),
      `${attacker.binding}x`,
    ]) {
      const res = await t.call('POST', '/oauth/testop/callback', {
        body: { code: attacker.code, state: attacker.state, binding },
      });
      expect(res.status, binding).toBe(400);
      expect(res.body).toEqual(INVALID_STATE);
    }
    expect(oidc.op.tokenRequests()).toBe(before);
    expect(await t.api.deps.db.select().from(sessions)).toHaveLength(0);
    expect(await t.api.deps.db.select().from(oauthConsumedStates)).toHaveLength(0);
    // An empty binding counts as none.
    expect(await failureReasons(t)).toEqual([
      'binding_mismatch',
      'binding_mismatch',
      'binding_missing',
      'binding_mismatch',
      'binding_mismatch',
    ]);
    // Its initiator still completes the flow (a foreign caller cannot burn it), once.
    const own = await t.call('POST', '/oauth/testop/callback', {
      body: { code: attacker.code, state: attacker.state, binding: attacker.binding },
    });
    expect(own.status).toBe(200);
    expect(oidc.op.tokenRequests()).toBe(before + 1);
    const replay = await t.call('POST', '/oauth/testop/callback', {
      body: { code: attacker.code, state: attacker.state, binding: attacker.binding },
    });
    expect(replay.body).toEqual(INVALID_STATE);
  });

  it('checks the state before the binding: a tampered or expired state is still state_* (one code, no oracle)', async () => {
    const t = await makeOAuthApi(oidc.op);
    const { code, state, binding } = await attackerFlow(t);
    t.clock.advance(10 * 60_000 + 1);
    const res = await t.call('POST', '/oauth/testop/callback', { body: { code, state, binding } });
    expect(res.body).toEqual(INVALID_STATE);
    const wrong = await t.call('POST', '/oauth/testop/callback', { body: { code, state, binding: 'nope' } });
    expect(wrong.body).toEqual(INVALID_STATE);
    expect(await failureReasons(t)).toEqual(['state_expired', 'state_expired']);
  });

  it('refuses a binding that is not a string or is oversized as a schema failure, never a 500', async () => {
    const t = await makeOAuthApi(oidc.op);
    const { code, state } = await attackerFlow(t);
    for (const binding of [42, { a: 1 }, 'b'.repeat(1000)]) {
      const res = await t.call('POST', '/oauth/testop/callback', { body: { code, state, binding } });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
  });
});
