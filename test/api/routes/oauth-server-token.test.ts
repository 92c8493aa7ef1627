/**
 * `POST /oauth2/token` (docs/oauth-provider.md): client authentication, the
 * authorization-code grant with PKCE and every negative case of the issue
 * with its RFC code, the tokens' shape, and the separation from svc's own
 * session tokens in both directions.
 */
import { eq } from 'drizzle-orm';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { authEvents, oauthClients, oauthGrants } from '../../../src/db/schema.js';
import type { TestApi } from '../../helpers/make-app.js';
import {
  basic,
  createOAuthClient,
  decodeJwt,
  formCall,
  makeProviderApi,
  obtainCode,
  PROVIDER_ISSUER,
  pkce,
  redeem,
  refreshCall,
  REDIRECT,
  RESOURCE_A,
  RESOURCE_B,
  signedInUser,
  type TestClient,
} from '../../helpers/oauth-server.js';

async function setup(over: Parameters<typeof createOAuthClient>[1] = {}) {
  const t = await makeProviderApi();
  const client = await createOAuthClient(t, over);
  const { user, session } = await signedInUser(t);
  return { t, client, user, session };
}

const introspect = (t: TestApi, rs: TestClient, token: string) => formCall(t, '/oauth2/introspect', { token }, rs);
const eventsOf = (t: TestApi, type: string) => t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));

describe('authorization_code', () => {
  it('issues an RFC 9068 access token, an ID token and a refresh token, never cached', async () => {
    const { t, client, user, session } = await setup();
    const { code, verifier } = await obtainCode(t, session, client, { scope: 'openid email', resource: RESOURCE_A });
    const res = await redeem(t, client, code, verifier);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'email openid' });
    expect(res.body.refresh_token).toMatch(/^svc_rt_/);
    const jwks = createLocalJWKSet((await t.call('GET', '/.well-known/jwks.json')).body);
    const at = await jwtVerify(res.body.access_token, jwks, {
      issuer: PROVIDER_ISSUER,
      audience: RESOURCE_A,
      typ: 'at+jwt',
    });
    expect(at.protectedHeader.typ).toBe('at+jwt');
    expect(at.payload).toMatchObject({
      sub: user.id,
      client_id: client.row.id,
      scope: 'email openid',
      acr: expect.any(String),
    });
    expect(at.payload['typ']).toBeUndefined();
    expect(typeof at.payload['gid']).toBe('string');
    expect(typeof at.payload.jti).toBe('string');
    const id = await jwtVerify(res.body.id_token, jwks, { issuer: PROVIDER_ISSUER, audience: client.row.id });
    expect(id.payload).toMatchObject({
      sub: user.id,
      azp: client.row.id,
      nonce: 'n-456',
      email: user.email,
      email_verified: true,
      sid: session.sessionId,
    });
    expect(typeof id.payload['auth_time']).toBe('number');
    expect(id.payload['phone_number']).toBeUndefined();
    const [issued] = await eventsOf(t, 'oauth_token_issued');
    expect(issued!.metadata).toEqual({ grantType: 'authorization_code', clientId: client.row.id });
    expect(issued!.userId).toBe(user.id);
    const [row] = await t.api.deps.db.select().from(oauthClients).where(eq(oauthClients.id, client.row.id));
    expect(row!.lastUsedAt).not.toBeNull();
  });

  it('without a resource the access token is for the issuer (userinfo); no openid → no ID token', async () => {
    const { t, client, session } = await setup();
    const { code, verifier } = await obtainCode(t, session, client, { scope: 'email' });
    const res = await redeem(t, client, code, verifier);
    expect(decodeJwt(res.body.access_token).payload.aud).toBe(PROVIDER_ISSUER);
    expect(res.body.id_token).toBeUndefined();
  });

  it('no refresh token for a client without the refresh_token grant', async () => {
    const { t, client, session } = await setup({ grantTypes: ['authorization_code'] });
    const { code, verifier } = await obtainCode(t, session, client);
    const res = await redeem(t, client, code, verifier);
    expect(res.status).toBe(200);
    expect(res.body.refresh_token).toBeUndefined();
  });

  it('wrong, missing or plain-text PKCE verifier → invalid_grant / invalid_request', async () => {
    const { t, client, session } = await setup();
    const { code, verifier } = await obtainCode(t, session, client);
    const other = pkce().verifier;
    expect((await redeem(t, client, code, other)).body.error).toBe('invalid_grant');
    expect((await redeem(t, client, code, 'short')).body.error).toBe('invalid_request');
    const missing = await formCall(
      t,
      '/oauth2/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      client,
    );
    expect(missing.body.error).toBe('invalid_request');
    // The refusals did not spend it.
    expect((await redeem(t, client, code, verifier)).status).toBe(200);
  });

  it('wrong redirect URI → invalid_grant; wrong resource → invalid_target', async () => {
    const { t, client, session } = await setup();
    const { code, verifier } = await obtainCode(t, session, client, { resource: RESOURCE_A, scope: 'openid' });
    const wrong = await redeem(t, client, code, verifier, { redirect_uri: 'https://client.example/other' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    expect((await redeem(t, client, code, verifier, { resource: RESOURCE_B })).body.error).toBe('invalid_target');
    expect((await redeem(t, client, code, verifier, { resource: RESOURCE_A })).status).toBe(200);
  });

  it('a code for another client → invalid_grant, and it stays good for its own client', async () => {
    const { t, client, session } = await setup();
    const thief = await createOAuthClient(t);
    const { code, verifier } = await obtainCode(t, session, client);
    const res = await redeem(t, thief, code, verifier);
    expect(res.body.error).toBe('invalid_grant');
    expect((await redeem(t, client, code, verifier)).status).toBe(200);
  });

  it('an expired code (60 s) → invalid_grant', async () => {
    const { t, client, session } = await setup();
    const { code, verifier } = await obtainCode(t, session, client);
    t.clock.advance(61_000);
    expect((await redeem(t, client, code, verifier)).body.error).toBe('invalid_grant');
    expect((await redeem(t, client, 'svc_ac_unknown', verifier)).body.error).toBe('invalid_grant');
  });

  it('a replayed code → invalid_grant and the grant revoked: its refresh token and access token stop working', async () => {
    const { t, client, session } = await setup();
    const rs = await createOAuthClient(t);
    const { code, verifier } = await obtainCode(t, session, client, { resource: RESOURCE_A, scope: 'openid' });
    const first = await redeem(t, client, code, verifier);
    expect((await introspect(t, rs, first.body.access_token)).body.active).toBe(true);
    const replay = await redeem(t, client, code, verifier);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await refreshCall(t, client, first.body.refresh_token)).body.error).toBe('invalid_grant');
    expect((await introspect(t, rs, first.body.access_token)).body).toEqual({ active: false });
    const [grant] = await t.api.deps.db.select().from(oauthGrants);
    expect(grant!.revokedReason).toBe('code_replay');
    expect(await eventsOf(t, 'oauth_code_replayed')).toHaveLength(1);
    const revoked = await eventsOf(t, 'oauth_grant_revoked');
    expect(revoked[0]!.metadata).toMatchObject({ reason: 'code_replay', clientId: client.row.id });
    for (const e of await t.api.deps.db.select().from(authEvents))
      expect(JSON.stringify(e)).not.toMatch(/svc_ac_|svc_rt_|eyJ/);
  });

  it('two concurrent redemptions of one code: one token answer, one invalid_grant, and the grant revoked', async () => {
    const { t, client, session } = await setup();
    const { code, verifier } = await obtainCode(t, session, client);
    const results = await Promise.all([redeem(t, client, code, verifier), redeem(t, client, code, verifier)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const loser = results.find((r) => r.status === 400)!;
    expect(loser.body.error).toBe('invalid_grant');
    const winner = results.find((r) => r.status === 200)!;
    const [grant] = await t.api.deps.db.select().from(oauthGrants);
    expect(grant!.revokedAt).not.toBeNull();
    expect((await refreshCall(t, client, winner.body.refresh_token)).body.error).toBe('invalid_grant');
  });
});

describe('client authentication', () => {
  it('client_secret_basic form-urlencodes id and secret (RFC 6749 §2.3.1)', async () => {
    const t = await makeProviderApi();
    const odd = await createOAuthClient(t, { id: 'svc:ci +odd/id%' });
    const { session } = await signedInUser(t);
    const { code, verifier } = await obtainCode(t, session, odd);
    expect((await redeem(t, odd, code, verifier)).status).toBe(200);
    // The same credentials without form-encoding the id do not match.
    const raw = await t.call('POST', '/oauth2/token', {
      rawBody: 'grant_type=refresh_token&refresh_token=x',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`svc:ci +odd/id%:${odd.secret}`)}`,
      },
    });
    expect(raw.status).toBe(401);
  });

  it('a wrong secret, an unknown client or a disabled one → 401 invalid_client with WWW-Authenticate: Basic', async () => {
    const { t, client } = await setup();
    const fields = { grant_type: 'refresh_token', refresh_token: 'svc_rt_x' };
    const wrong = await t.call('POST', '/oauth2/token', {
      rawBody: new URLSearchParams(fields).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic(client.row.id, 'svc_cs_wrong'),
      },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: 'invalid_client' });
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(wrong.headers.get('cache-control')).toBe('no-store');
    const unknown = await formCall(t, '/oauth2/token', fields, {
      row: { ...client.row, id: 'svc_ci_nope' },
      secret: client.secret,
    });
    expect(unknown.status).toBe(401);
    await t.api.deps.db.update(oauthClients).set({ disabledAt: new Date() }).where(eq(oauthClients.id, client.row.id));
    expect((await formCall(t, '/oauth2/token', fields, client)).body.error).toBe('invalid_client');
  });

  it('a client may only use its registered method, and only one at a time', async () => {
    const { t, client } = await setup();
    const fields = { grant_type: 'refresh_token', refresh_token: 'svc_rt_x' };
    const post = await formCall(t, '/oauth2/token', fields, client, { auth: 'post' });
    expect(post.status).toBe(401);
    expect(post.body.error).toBe('invalid_client');
    expect(post.headers.get('www-authenticate')).toBeNull();
    const none = await formCall(t, '/oauth2/token', fields, client, { auth: 'none' });
    expect(none.body.error).toBe('invalid_client');
    const both = await formCall(t, '/oauth2/token', { ...fields, client_secret: client.secret! }, client, {
      auth: 'basic',
    });
    expect(both.body.error).toBe('invalid_request');
    const nobody = await formCall(t, '/oauth2/token', fields);
    expect(nobody.status).toBe(401);
  });

  it('client_secret_post and public clients (none + PKCE) work with their method', async () => {
    const t = await makeProviderApi();
    const { session } = await signedInUser(t);
    const post = await createOAuthClient(t, { tokenEndpointAuthMethod: 'client_secret_post' });
    const pub = await createOAuthClient(t, { type: 'public' });
    for (const c of [post, pub]) {
      const { code, verifier } = await obtainCode(t, session, c);
      expect((await redeem(t, c, code, verifier)).status, c.row.tokenEndpointAuthMethod).toBe(200);
    }
    // A public client cannot pretend to have a secret.
    const res = await formCall(t, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: 'x' }, pub, {
      auth: 'post',
    });
    expect(res.body.error).toBe('invalid_client');
  });
});

describe('request shape', () => {
  it('form-encoded only; a repeated parameter, a missing or unknown grant_type are refused', async () => {
    const { t, client } = await setup();
    const json = await t.call('POST', '/oauth2/token', {
      body: { grant_type: 'refresh_token' },
      headers: { authorization: basic(client.row.id, client.secret!) },
    });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe('invalid_request');
    const twice = await t.call('POST', '/oauth2/token', {
      rawBody: 'grant_type=refresh_token&grant_type=authorization_code',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic(client.row.id, client.secret!),
      },
    });
    expect(twice.body.error).toBe('invalid_request');
    expect((await formCall(t, '/oauth2/token', {}, client)).body.error).toBe('invalid_request');
    expect((await formCall(t, '/oauth2/token', { grant_type: 'password' }, client)).body.error).toBe(
      'unsupported_grant_type',
    );
    expect((await formCall(t, '/oauth2/token', { grant_type: 'client_credentials' }, client)).body.error).toBe(
      'unsupported_grant_type',
    );
    const noRefresh = await createOAuthClient(t, { grantTypes: ['authorization_code'] });
    expect(
      (await formCall(t, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: 'x' }, noRefresh)).body.error,
    ).toBe('unauthorized_client');
  });
});
