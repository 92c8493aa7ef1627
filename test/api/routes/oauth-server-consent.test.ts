/**
 * `POST /oauth2/consent` and the consent decisions of `POST /oauth2/authorize`
 * (docs/oauth-provider.md): remembered consent, deny, single use, expiry,
 * session binding, races.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, oauthAuthorizationRequests, oauthClients, oauthConsents } from '../../../src/db/schema.js';
import { signIn } from '../../helpers/factories.js';
import {
  authorizeCall,
  authParams,
  consentCall,
  createOAuthClient,
  makeProviderApi,
  pkce,
  PROVIDER_ISSUER,
  query,
  RESOURCE_A,
  RESOURCE_B,
  signedInUser,
} from '../../helpers/oauth-server.js';

async function setup() {
  const t = await makeProviderApi();
  const client = await createOAuthClient(t);
  const { user, session } = await signedInUser(t);
  const { challenge } = pkce();
  return { t, client, user, session, challenge };
}

describe('consent', () => {
  it('shows the client, the scopes, the resource and the user; allow → code with state and iss', async () => {
    const { t, client, user, session, challenge } = await setup();
    const res = await authorizeCall(
      t,
      authParams(client, challenge, { scope: 'openid email mcp:tools', resource: RESOURCE_A }),
      session.token,
    );
    expect(res.body).toMatchObject({
      action: 'consent',
      client: { id: client.row.id, name: 'Test app', clientUri: 'https://client.example', registration: 'admin' },
      resource: { uri: RESOURCE_A, name: 'The MCP server' },
      user: { email: user.email },
    });
    expect(res.body.requestId).toMatch(/^svc_ar_/);
    expect(res.body.scopes.map((s: { name: string }) => s.name)).toEqual(['email', 'mcp:tools', 'openid']);
    // Stored hashed, never the id the page holds.
    const rows = await t.api.deps.db.select().from(oauthAuthorizationRequests);
    expect(rows[0]!.id).not.toBe(res.body.requestId);
    const allowed = await consentCall(t, session.token, res.body.requestId, 'allow');
    expect(allowed.status).toBe(200);
    const q = query(allowed.body.location);
    expect(q.get('code')).toMatch(/^svc_ac_/);
    expect(q.get('state')).toBe('st-123');
    expect(q.get('iss')).toBe(PROVIDER_ISSUER);
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'oauth_consent_granted'));
    expect(ev!.metadata).toMatchObject({ clientId: client.row.id, resource: RESOURCE_A });
    expect(JSON.stringify(ev)).not.toContain(q.get('code')!);
  });

  it('is remembered for a subset of the scopes and the same resource; more scope or another resource asks again', async () => {
    const { t, client, session, challenge } = await setup();
    const first = await authorizeCall(
      t,
      authParams(client, challenge, { scope: 'openid email mcp:tools', resource: RESOURCE_A }),
      session.token,
    );
    await consentCall(t, session.token, first.body.requestId, 'allow');
    const subset = await authorizeCall(
      t,
      authParams(client, challenge, { scope: 'openid', resource: RESOURCE_A }),
      session.token,
    );
    expect(subset.body.action).toBe('redirect');
    expect(query(subset.body.location).get('code')).toBeTruthy();
    const more = await authorizeCall(t, authParams(client, challenge, { scope: 'openid phone' }), session.token);
    expect(more.body.action).toBe('consent');
    const other = await authorizeCall(
      t,
      authParams(client, challenge, { scope: 'openid', resource: RESOURCE_B }),
      session.token,
    );
    expect(other.body.action).toBe('consent');
    const forced = await authorizeCall(
      t,
      authParams(client, challenge, { scope: 'openid', prompt: 'consent' }),
      session.token,
    );
    expect(forced.body.action).toBe('consent');
    const none = await authorizeCall(
      t,
      authParams(client, challenge, { scope: 'openid phone', prompt: 'none' }),
      session.token,
    );
    expect(query(none.body.location).get('error')).toBe('consent_required');
    // Union of what was agreed.
    await consentCall(t, session.token, other.body.requestId, 'allow');
    const [row] = await t.api.deps.db.select().from(oauthConsents);
    expect(row!.scope).toBe('email mcp:tools openid');
    expect(row!.resources).toEqual([RESOURCE_A, RESOURCE_B]);
  });

  it('a skipConsent client skips the page', async () => {
    const t = await makeProviderApi();
    const client = await createOAuthClient(t, { skipConsent: true });
    const { session } = await signedInUser(t);
    const res = await authorizeCall(t, authParams(client, pkce().challenge), session.token);
    expect(res.body.action).toBe('redirect');
    expect(query(res.body.location).get('code')).toBeTruthy();
  });

  it('deny → access_denied with state and iss, and nothing remembered', async () => {
    const { t, client, session, challenge } = await setup();
    const res = await authorizeCall(t, authParams(client, challenge), session.token);
    const denied = await consentCall(t, session.token, res.body.requestId, 'deny');
    const q = query(denied.body.location);
    expect(q.get('error')).toBe('access_denied');
    expect(q.get('state')).toBe('st-123');
    expect(q.get('iss')).toBe(PROVIDER_ISSUER);
    expect(q.get('code')).toBeNull();
    expect(await t.api.deps.db.select().from(oauthConsents)).toHaveLength(0);
    expect(
      await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'oauth_consent_denied')),
    ).toHaveLength(1);
  });

  it('the request is single use, expires after 10 minutes, and only its own session may answer', async () => {
    const { t, client, user, session, challenge } = await setup();
    const a = await authorizeCall(t, authParams(client, challenge), session.token);
    expect((await consentCall(t, session.token, a.body.requestId, 'allow')).status).toBe(200);
    const again = await consentCall(t, session.token, a.body.requestId, 'allow');
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('oauth_request_expired');

    const b = await authorizeCall(t, authParams(client, challenge, { prompt: 'consent' }), session.token);
    const otherSession = await signIn(t, user);
    const stranger = await signedInUser(t);
    expect((await consentCall(t, otherSession.token, b.body.requestId, 'allow')).body.error).toBe(
      'oauth_request_expired',
    );
    expect((await consentCall(t, stranger.session.token, b.body.requestId, 'allow')).body.error).toBe(
      'oauth_request_expired',
    );
    expect((await consentCall(t, 'nope', b.body.requestId, 'allow')).status).toBe(401);
    t.clock.advance(601_000);
    expect((await consentCall(t, session.token, b.body.requestId, 'allow')).body.error).toBe('oauth_request_expired');
    expect((await consentCall(t, session.token, 'svc_ar_unknown', 'allow')).body.error).toBe('oauth_request_expired');
  });

  it('a client changed while the page was open: a removed redirect URI → expired, a removed scope → invalid_scope', async () => {
    const { t, client, session, challenge } = await setup();
    const a = await authorizeCall(t, authParams(client, challenge), session.token);
    const b = await authorizeCall(t, authParams(client, challenge, { prompt: 'consent' }), session.token);
    const db = t.api.deps.db;
    await db
      .update(oauthClients)
      .set({ scopes: ['openid'] })
      .where(eq(oauthClients.id, client.row.id));
    const narrowed = await consentCall(t, session.token, a.body.requestId, 'allow');
    expect(query(narrowed.body.location).get('error')).toBe('invalid_scope');
    expect(query(narrowed.body.location).get('code')).toBeNull();
    await db
      .update(oauthClients)
      .set({ redirectUris: ['https://client.example/new'] })
      .where(eq(oauthClients.id, client.row.id));
    expect((await consentCall(t, session.token, b.body.requestId, 'allow')).body.error).toBe('oauth_request_expired');
  });

  it('two concurrent answers to one request: one location, one oauth_request_expired', async () => {
    const { t, client, session, challenge } = await setup();
    const a = await authorizeCall(t, authParams(client, challenge), session.token);
    const results = await Promise.all([
      consentCall(t, session.token, a.body.requestId, 'allow'),
      consentCall(t, session.token, a.body.requestId, 'allow'),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });
});
