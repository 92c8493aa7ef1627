/**
 * Refresh, userinfo, revocation, introspection and metadata of the provider
 * (docs/oauth-provider.md): rotation with reuse detection, grants ending with
 * the svc session they came from unless `offline_access`, and what each
 * endpoint refuses with its RFC code.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, oauthGrants } from '../../../src/db/schema.js';
import type { TestApi } from '../../helpers/make-app.js';
import {
  createOAuthClient,
  formCall,
  makeProviderApi,
  obtainCode,
  PROVIDER_ISSUER,
  redeem,
  refreshCall,
  RESOURCE_A,
  RESOURCE_B,
  signedInUser,
  type TestClient,
} from '../../helpers/oauth-server.js';

async function setup(extra: Record<string, string> = {}) {
  const t = await makeProviderApi();
  const client = await createOAuthClient(t);
  const rs = await createOAuthClient(t, { name: 'Resource server' });
  const { user, session } = await signedInUser(t);
  const { code, verifier } = await obtainCode(t, session, client, { scope: 'openid email', ...extra });
  const tokens = (await redeem(t, client, code, verifier)).body;
  return { t, client, rs, user, session, tokens };
}

const introspect = (t: TestApi, rs: TestClient, token: string) => formCall(t, '/oauth2/introspect', { token }, rs);
const revoke = (t: TestApi, c: TestClient, token: string) => formCall(t, '/oauth2/revoke', { token }, c);
const eventsOf = (t: TestApi, type: string) => t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));

describe('refresh_token', () => {
  it('rotates: a new pair each time, the old refresh token spent', async () => {
    const { t, client, tokens } = await setup();
    const next = await refreshCall(t, client, tokens.refresh_token);
    expect(next.status).toBe(200);
    expect(next.headers.get('cache-control')).toBe('no-store');
    expect(next.body.refresh_token).toMatch(/^svc_rt_/);
    expect(next.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.body.scope).toBe('email openid');
    expect(next.body.id_token).toBeTruthy();
    const again = await refreshCall(t, client, next.body.refresh_token);
    expect(again.status).toBe(200);
    const [ev] = await eventsOf(t, 'oauth_token_issued').then((r) =>
      r.filter((e) => (e.metadata as any).grantType === 'refresh_token'),
    );
    expect(ev!.metadata).toEqual({ grantType: 'refresh_token', clientId: client.row.id });
  });

  it('a spent refresh token → invalid_grant and the whole grant revoked (reuse detection)', async () => {
    const { t, client, rs, tokens } = await setup();
    const next = await refreshCall(t, client, tokens.refresh_token);
    const reuse = await refreshCall(t, client, tokens.refresh_token);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    expect((await refreshCall(t, client, next.body.refresh_token)).body.error).toBe('invalid_grant');
    expect((await introspect(t, rs, next.body.access_token)).body).toEqual({ active: false });
    const [grant] = await t.api.deps.db.select().from(oauthGrants);
    expect(grant!.revokedReason).toBe('refresh_reuse');
    expect(await eventsOf(t, 'oauth_refresh_reused')).toHaveLength(1);
  });

  it('two concurrent refreshes of one token: one succeeds, the other is invalid_grant', async () => {
    const { t, client, tokens } = await setup();
    const results = await Promise.all([
      refreshCall(t, client, tokens.refresh_token),
      refreshCall(t, client, tokens.refresh_token),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(results.find((r) => r.status === 400)!.body.error).toBe('invalid_grant');
  });

  it('scope may narrow, never widen; the resource may only be the grant’s', async () => {
    const { t, client, tokens } = await setup({ resource: RESOURCE_A, scope: 'openid email mcp:tools' });
    const narrow = await refreshCall(t, client, tokens.refresh_token, { scope: 'mcp:tools' });
    expect(narrow.status).toBe(200);
    expect(narrow.body.scope).toBe('mcp:tools');
    expect(narrow.body.id_token).toBeUndefined();
    const wide = await refreshCall(t, client, narrow.body.refresh_token, { scope: 'openid phone' });
    expect(wide.body.error).toBe('invalid_scope');
    const other = await refreshCall(t, client, narrow.body.refresh_token, { resource: RESOURCE_B });
    expect(other.body.error).toBe('invalid_target');
    const same = await refreshCall(t, client, narrow.body.refresh_token, { resource: RESOURCE_A });
    expect(same.status).toBe(200);
    // The grant keeps its full scope.
    expect((await refreshCall(t, client, same.body.refresh_token)).body.scope).toBe('email mcp:tools openid');
  });

  it('another client’s, an unknown or an expired refresh token → invalid_grant', async () => {
    const { t, client, tokens } = await setup();
    const other = await createOAuthClient(t);
    expect((await refreshCall(t, other, tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await refreshCall(t, client, 'svc_rt_unknown')).body.error).toBe('invalid_grant');
    // Another client presenting it did not spend it.
    t.clock.advance(31 * 86400_000);
    expect((await refreshCall(t, client, tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('the grant ends with the svc session it came from (logout), unless offline_access', async () => {
    const { t, client, rs, session, tokens } = await setup();
    expect((await t.call('DELETE', '/logout', { token: session.token })).status).toBe(200);
    expect((await refreshCall(t, client, tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await introspect(t, rs, tokens.access_token)).body).toEqual({ active: false });

    const offline = await setup({ scope: 'openid offline_access' });
    expect((await offline.t.call('DELETE', '/logout', { token: offline.session.token })).status).toBe(200);
    expect((await refreshCall(offline.t, offline.client, offline.tokens.refresh_token)).status).toBe(200);
  });

  it('svc session refresh moves sid along the chain without ending the grant', async () => {
    const { t, client, session, tokens } = await setup();
    const rotated = await t.call('POST', '/refresh', { token: session.refreshToken });
    expect(rotated.status).toBe(200);
    expect((await refreshCall(t, client, tokens.refresh_token)).status).toBe(200);
  });
});

describe('userinfo', () => {
  it('answers the claims of the granted scopes for an issuer-audience token with openid', async () => {
    const { t, user, tokens } = await setup({ scope: 'openid email profile' });
    for (const method of ['GET', 'POST']) {
      const res = await t.call(method, '/oauth2/userinfo', { token: tokens.access_token });
      expect(res.status, method).toBe(200);
      expect(res.body).toMatchObject({
        sub: user.id,
        email: user.email,
        email_verified: true,
        updated_at: expect.any(Number),
      });
      expect(res.body.phone_number).toBeUndefined();
    }
  });

  it('refuses a missing, forged, expired, resource-bound, openid-less or revoked token', async () => {
    const { t, client, tokens } = await setup();
    const none = await t.call('GET', '/oauth2/userinfo');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await t.call('GET', '/oauth2/userinfo', { token: `${tokens.access_token.slice(0, -4)}AAAA` })).status).toBe(
      401,
    );

    const { session } = await signedInUser(t);
    const forA = await obtainCode(t, session, client, { scope: 'openid', resource: RESOURCE_A });
    const aTokens = (await redeem(t, client, forA.code, forA.verifier)).body;
    expect((await t.call('GET', '/oauth2/userinfo', { token: aTokens.access_token })).body.error).toBe('invalid_token');

    const noOpenid = await obtainCode(t, session, client, { scope: 'email' });
    const emailOnly = (await redeem(t, client, noOpenid.code, noOpenid.verifier)).body;
    const res = await t.call('GET', '/oauth2/userinfo', { token: emailOnly.access_token });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');

    expect((await revoke(t, client, tokens.access_token)).status).toBe(200);
    expect((await t.call('GET', '/oauth2/userinfo', { token: tokens.access_token })).status).toBe(401);

    const fresh = await setup();
    fresh.t.clock.advance(16 * 60_000);
    expect((await fresh.t.call('GET', '/oauth2/userinfo', { token: fresh.tokens.access_token })).status).toBe(401);
  });
});

describe('revocation (RFC 7009)', () => {
  it('a refresh token revokes its grant; an access token revokes its grant via gid', async () => {
    const a = await setup();
    const res = await revoke(a.t, a.client, a.tokens.refresh_token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((await refreshCall(a.t, a.client, a.tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await introspect(a.t, a.rs, a.tokens.access_token)).body.active).toBe(false);
    const [grant] = await a.t.api.deps.db.select().from(oauthGrants);
    expect(grant!.revokedReason).toBe('client');

    const b = await setup();
    expect((await revoke(b.t, b.client, b.tokens.access_token)).status).toBe(200);
    expect((await refreshCall(b.t, b.client, b.tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('unknown tokens → 200; another client’s token → 200 and nothing revoked; client auth required', async () => {
    const { t, client, rs, tokens } = await setup();
    expect((await revoke(t, client, 'svc_rt_unknown')).status).toBe(200);
    expect((await revoke(t, client, 'garbage')).status).toBe(200);
    expect((await revoke(t, rs, tokens.refresh_token)).status).toBe(200);
    expect((await revoke(t, rs, tokens.access_token)).status).toBe(200);
    expect((await refreshCall(t, client, tokens.refresh_token)).status).toBe(200);
    const anon = await formCall(t, '/oauth2/revoke', { token: tokens.refresh_token });
    expect(anon.status).toBe(401);
    expect(anon.body.error).toBe('invalid_client');
    expect((await formCall(t, '/oauth2/revoke', {}, client)).body.error).toBe('invalid_request');
    expect((await formCall(t, '/oauth2/revoke', { token: 'x', token_type_hint: 'id_token' }, client)).body.error).toBe(
      'unsupported_token_type',
    );
  });
});

describe('introspection (RFC 7662)', () => {
  it('active access token: its claims; refresh token only for its own client', async () => {
    const { t, client, rs, user, tokens } = await setup({ resource: RESOURCE_A, scope: 'openid mcp:tools' });
    const res = await introspect(t, rs, tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({
      active: true,
      client_id: client.row.id,
      sub: user.id,
      aud: RESOURCE_A,
      scope: 'mcp:tools openid',
      iss: PROVIDER_ISSUER,
      token_type: 'Bearer',
    });
    expect((await introspect(t, client, tokens.refresh_token)).body).toMatchObject({
      active: true,
      token_type: 'refresh_token',
    });
    expect((await introspect(t, rs, tokens.refresh_token)).body).toEqual({ active: false });
  });

  it('inactive for expired, forged, session and unknown tokens; public clients refused', async () => {
    const { t, rs, session, tokens } = await setup();
    expect((await introspect(t, rs, session.token)).body).toEqual({ active: false });
    expect((await introspect(t, rs, 'svc_rt_unknown')).body).toEqual({ active: false });
    expect((await introspect(t, rs, `${tokens.access_token.slice(0, -4)}AAAA`)).body).toEqual({ active: false });
    const pub = await createOAuthClient(t, { type: 'public' });
    const refused = await introspect(t, pub, tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_client');
    expect(refused.body.active).toBeUndefined();
    t.clock.advance(16 * 60_000);
    expect((await introspect(t, rs, tokens.access_token)).body).toEqual({ active: false });
  });

  it('a token for resource A is not one for resource B (the audience says which)', async () => {
    const { t, rs, tokens } = await setup({ resource: RESOURCE_A, scope: 'openid' });
    const res = await introspect(t, rs, tokens.access_token);
    expect(res.body.aud).toBe(RESOURCE_A);
    expect(res.body.aud).not.toBe(RESOURCE_B);
  });
});

describe('metadata', () => {
  it('describes the provider from oauth_server; registration only when dynamic registration is on', async () => {
    const t = await makeProviderApi();
    const res = await t.call('GET', '/oauth2/metadata');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: PROVIDER_ISSUER,
      authorization_endpoint: `${PROVIDER_ISSUER}/oauth2/authorize`,
      token_endpoint: `${PROVIDER_ISSUER}/oauth2/token`,
      userinfo_endpoint: `${PROVIDER_ISSUER}/oauth2/userinfo`,
      jwks_uri: `${PROVIDER_ISSUER}/.well-known/jwks.json`,
      revocation_endpoint: `${PROVIDER_ISSUER}/oauth2/revoke`,
      introspection_endpoint: `${PROVIDER_ISSUER}/oauth2/introspect`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      code_challenge_methods_supported: ['S256'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(res.body.registration_endpoint).toBeUndefined();
    expect(res.body.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'offline_access', 'notes.read', 'mcp:tools']),
    );
    const on = await makeProviderApi({
      dynamicRegistration: { enabled: true, perIpPerHour: 10, unusedExpiryDays: 30 },
    });
    expect((await on.call('GET', '/oauth2/metadata')).body.registration_endpoint).toBe(
      `${PROVIDER_ISSUER}/oauth2/register`,
    );
  });
});
