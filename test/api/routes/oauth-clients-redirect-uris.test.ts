/**
 * Redirect URI rules of client registration (the OAuth 2.1 draft, RFC 8252):
 * the table, through the admin API in production and in development.
 */
import { describe, expect, it } from 'vitest';
import { signedIn } from '../../helpers/admin.js';
import { makeApi } from '../../helpers/make-app.js';
import type { ApiError } from '../../../src/errors.js';
import { createClient } from '../../../src/services/oauth-server/clients/admin.js';
import { redirectUriProblem } from '../../../src/services/oauth-server/clients/rules.js';

type Case = [uri: string, type: 'confidential' | 'public', production: boolean, ok: boolean];

const TABLE: Case[] = [
  ['https://app.example/callback', 'confidential', true, true],
  ['https://app.example/callback?x=1', 'public', true, true],
  ['https://app.example/cb#frag', 'confidential', true, false],
  ['https://app.example/cb#', 'confidential', false, false],
  ['https://*.example/cb', 'confidential', false, false],
  ['https://app.example/*', 'public', false, false],
  ['/callback', 'confidential', false, false],
  ['app.example/callback', 'confidential', false, false],
  ['https://user:pw@app.example/cb', 'confidential', false, false],
  ['http://app.example/cb', 'confidential', true, false],
  ['http://app.example/cb', 'public', true, false],
  ['http://localhost:8080/cb', 'public', true, false],
  ['http://127.0.0.1/cb', 'public', true, true],
  ['http://127.0.0.1:53682/cb', 'public', true, true],
  ['http://[::1]:8080/cb', 'public', true, true],
  ['http://127.0.0.1/cb', 'confidential', true, false],
  ['com.example.app:/oauth2redirect', 'public', true, true],
  ['com.example.app:/oauth2redirect', 'confidential', true, false],
  ['myapp:/cb', 'public', true, false],
  ['javascript:alert(1)', 'public', false, false],
  ['data:text/html,x', 'public', false, false],
  ['file:///etc/passwd', 'public', false, false],
  ['http://app.example/cb', 'confidential', false, true],
  ['http://localhost:3000/cb', 'public', false, true],
  [`https://app.example/${'a'.repeat(2048)}`, 'confidential', false, false],
];

describe('redirect URI rules', () => {
  it.each(TABLE)('%s (%s, production %s) → allowed %s', (uri, type, production, ok) => {
    expect(redirectUriProblem(uri, type, production) === null).toBe(ok);
  });

  it('client creation applies them in production, naming the field and index', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:write']);
    const production = { ...t.api.deps, env: { ...t.api.deps.env, production: true } };
    const actor = { actorUserId: admin.user.id, sessionId: admin.sessionId, ipAddress: null, userAgent: null };
    const create = (type: 'confidential' | 'public', redirectUris: string[]) =>
      createClient(production, { name: 'x', type, redirectUris, scopes: ['openid'] }, actor).then(
        () => null,
        (err: ApiError) => err,
      );
    const refused = await create('confidential', ['https://ok.example/cb', 'http://ok.example/cb']);
    expect(refused?.status).toBe(400);
    expect(refused?.body()).toMatchObject({
      error: 'invalid_request',
      details: { issues: [{ path: ['redirectUris', 1] }] },
    });
    expect(await create('public', ['http://127.0.0.1/cb', 'com.example.app:/cb'])).toBeNull();
    expect((await create('confidential', ['com.example.app:/cb']))?.status).toBe(400);
    expect((await create('public', []))?.status).toBe(400);
    // Outside production the same http URL passes (local development), through the route.
    const dev = await t.call('POST', '/admin/oauth-clients', {
      token: admin.token,
      body: { name: 'dev', type: 'confidential', redirectUris: ['http://localhost:3000/cb'], scopes: ['openid'] },
    });
    expect(dev.status).toBe(201);
  });
});
