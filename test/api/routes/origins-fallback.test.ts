/**
 * `origins[0]` is the fallback for a request that gives no origin (the spec says so;
 * contract §6.1): every link or redirect the API builds without one from the
 * request starts with the **first** entry, never another listed one. The
 * places: the emailed magic link (no `redirectUri`), the OAuth redirect URI
 * (no `redirectUri` and none configured), the invitation email's link. With
 * two listed origins a fallback to "any entry" would show here.
 */
import { describe, expect, it } from 'vitest';
import { signedIn } from '../../helpers/admin.js';
import { captureSender, settle } from '../../helpers/capture-sender.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';
import { STATE_SECRET, staticProvider } from '../../helpers/oauth.js';
import { createOrg, invite } from '../../helpers/organizations.js';
import { externalDelivery } from '../../helpers/service-token.js';

const FIRST = 'https://first.example';
const ORIGINS = `${FIRST},https://second.example,http://localhost:3000`;

describe('origins[0] as the fallback origin', () => {
  it('magic link without redirectUri: <origins[0]>/verify-magiclink', async () => {
    const t = await makeApi({ env: { ORIGINS } });
    const user = await createUser(t);
    const login = await t.call('POST', '/login', { body: { identifier: user.email } });
    const req = await t.call('POST', '/magic-link', {
      token: login.body.token,
      body: {},
      headers: await externalDelivery(t.clock.now(), {
        'x-svc-client-ip': '203.0.113.7',
        'x-svc-client-user-agent': 'Browser A',
      }),
    });
    expect(req.status).toBe(200);
    const url = new URL(req.body.delivery.magicLinkUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${FIRST}/verify-magiclink`);
  });

  it('OAuth start without redirectUri, provider without one: <origins[0]>/oauth/callback', async () => {
    const t = await makeApi({
      env: {
        ORIGINS,
        LOGIN_METHODS: 'passkey,oauth',
        OAUTH_STATE_SECRET: STATE_SECRET,
        OAUTH_PROVIDERS: JSON.stringify([staticProvider()]),
      },
    });
    const start = await t.call('POST', '/oauth/acme/start', { body: {} });
    expect(start.status).toBe(200);
    expect(new URL(start.body.authorizationUrl).searchParams.get('redirect_uri')).toBe(`${FIRST}/oauth/callback`);
  });

  it('invitation email: <origins[0]>/invitations?invitation=<id>', async () => {
    const sender = captureSender();
    const t = await makeApi({ sender, env: { ORIGINS } });
    const alice = await signedIn(t);
    const org = await createOrg(t, alice);
    const inv = (await invite(t, alice, org.id, { email: 'invitee@example.com' })).body.invitation;
    await settle();
    expect(sender.sent[0]?.invitationUrl).toBe(`${FIRST}/invitations?invitation=${inv.id}`);
  });
});
