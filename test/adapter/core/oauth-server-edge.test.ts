/**
 * The provider's browser-facing routes on both adapters (Hono and Express, through the shared
 * `OAUTH_SERVER_ROUTES`): authorize (optional access cookie → the API's action), the consent page
 * and its CSRF-safe form post, the byte-for-byte passthrough with CORS, and the cached metadata and
 * JWKS. Sign-in and cookies are the real API's; the API's `/oauth2/*` answers are simulated here
 * with the private contract of docs/oauth-provider.md (the API side has tests of its own).
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { closeServers, expressMount } from '../express/harness.js';
import { APP_ORIGIN, honoMount, makeHarness, signedInBrowser, type Harness, type UpstreamCall } from '../helpers.js';

afterAll(closeServers);

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const CONSENT = {
  action: 'consent',
  requestId: 'svc_ar_request1',
  client: {
    id: 'cl_1',
    name: '<script>alert(1)</script> Notes',
    clientUri: 'https://notes.example/app',
    registration: 'dynamic',
  },
  scopes: [
    { name: 'openid', description: 'Sign you in' },
    { name: 'email', description: 'See your email address "& more"' },
  ],
  resource: { uri: 'https://mcp.example/mcp', name: 'MCP <tools>' },
  user: { email: 'ada@example.com' },
};

const bodyText = (call: UpstreamCall | undefined): string => {
  const b = call?.body as unknown;
  if (b === undefined) return '';
  return typeof b === 'string' ? b : new TextDecoder().decode(b as Uint8Array);
};

const cookieHeader = (cookies: Record<string, string>) =>
  Object.entries(cookies)
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');

describe.each([
  ['Hono', honoMount],
  ['Express', expressMount],
])('%s adapter: provider routes', (_name, mount) => {
  let h: Harness;
  let answers: Record<string, () => Response>;
  const oauthCalls = () => h.upstream.filter((c) => c.path.startsWith('/oauth2/'));
  /** Direct request (no redirect following: the Express driver is a real HTTP server). */
  const req = (path: string, init: RequestInit & { cookies?: Record<string, string> } = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('user-agent')) headers.set('user-agent', 'adapter-test');
    if (init.cookies) headers.set('cookie', cookieHeader(init.cookies));
    return h.driver.request(path, { ...init, headers, redirect: 'manual' });
  };

  beforeEach(async () => {
    answers = {};
    h = await makeHarness({}, {}, { mount });
    h.intercept = (call) => {
      const key = `${call.method} ${call.path.split('?')[0]}`;
      return answers[key]?.();
    };
  });

  describe('GET /auth/oauth2/authorize', () => {
    it('without cookies: sends every query parameter as strings, no user token, and 303s to the login location', async () => {
      answers['POST /oauth2/authorize'] = () =>
        json(200, {
          action: 'login',
          location: 'http://localhost:3000/?return_to=http%3A%2F%2Flocalhost%3A3000%2Fauth%2Foauth2%2Fauthorize',
        });
      const res = await req('/auth/oauth2/authorize?client_id=cl_1&state=a%20b&scope=openid+email');
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toMatch(/^http:\/\/localhost:3000\/\?return_to=/);
      expect(res.headers.getSetCookie()).toEqual([]);
      const [call] = oauthCalls();
      expect(call?.method).toBe('POST');
      expect(JSON.parse(bodyText(call))).toEqual({
        params: { client_id: 'cl_1', state: 'a b', scope: 'openid email' },
      });
      expect(call?.headers.get('authorization')).toBeNull();
      expect(call?.headers.get('x-svc-service-token')).toBeTruthy();
    });

    it('a parameter given twice is shown as invalid_request and never reaches the API (RFC 6749 §3.1)', async () => {
      const res = await req(
        '/auth/oauth2/authorize?client_id=cl_1&redirect_uri=https://a.example/cb&redirect_uri=https://evil.example/cb',
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('invalid_request');
      expect(oauthCalls()).toEqual([]);
    });

    it('with the access cookie: forwards the user token and renders the consent page, escaped and unframeable', async () => {
      const { env, cookies } = await signedInBrowser(h);
      answers['POST /oauth2/authorize'] = () => json(200, CONSENT);
      const res = await req('/auth/oauth2/authorize?client_id=cl_1', { cookies });
      expect(res.status).toBe(200);
      expect(oauthCalls()[0]?.headers.get('authorization')).toBe(`Bearer ${env.token}`);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      const html = await res.text();
      expect(html).not.toContain('<script>');
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Notes');
      expect(html).toContain('See your email address &quot;&amp; more&quot;');
      expect(html).toContain('MCP &lt;tools&gt;');
      expect(html).toContain('registered itself dynamically — not verified');
      expect(html).toContain('ada@example.com');
      expect(html).toContain('notes.example');
      expect(html).toMatch(/<input type="hidden" name="csrf" value="[A-Za-z0-9_-]{43}">/);
      expect(html).toContain('name="requestId" value="svc_ar_request1"');
    });

    it('with only the refresh cookie: refreshes like every cookie route and sends the new token', async () => {
      const { cookies: full } = await signedInBrowser(h);
      const cookies = { 'svc-refresh': full['svc-refresh'] };
      answers['POST /oauth2/authorize'] = () =>
        json(200, { action: 'redirect', location: 'https://rp.example/cb?code=c&state=s&iss=x' });
      const res = await req('/auth/oauth2/authorize?client_id=cl_1', { cookies });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('https://rp.example/cb?code=c&state=s&iss=x');
      expect(res.headers.getSetCookie().some((c) => c.startsWith('svc-access='))).toBe(true);
      expect(oauthCalls()[0]?.headers.get('authorization')).toMatch(/^Bearer ey/);
    });

    it('a stale session goes to the API as no session, and its cookies are cleared', async () => {
      answers['POST /oauth2/authorize'] = () => json(200, { action: 'login', location: '/?return_to=x' });
      const res = await req('/auth/oauth2/authorize?client_id=cl_1', {
        cookies: { 'svc-access': 'garbage', 'svc-refresh': 'garbage' },
      });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/?return_to=x');
      expect(oauthCalls()[0]?.headers.get('authorization')).toBeNull();
      expect(
        res.headers
          .getSetCookie()
          .map((c) => c.split('=')[0])
          .sort(),
      ).toEqual(['svc-access', 'svc-refresh']);
    });

    it("the API's error action is an HTML page, never a redirect", async () => {
      answers['POST /oauth2/authorize'] = () =>
        json(200, {
          action: 'error',
          error: 'invalid_request',
          error_description: 'redirect_uri is not registered for <this> client',
        });
      const res = await req('/auth/oauth2/authorize?client_id=cl_1&redirect_uri=https://evil.example/');
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const html = await res.text();
      expect(html).toContain('redirect_uri is not registered for &lt;this&gt; client');
      expect(html).not.toContain('evil.example');
    });

    it('a redirect to a script URL from the API is refused', async () => {
      answers['POST /oauth2/authorize'] = () => json(200, { action: 'redirect', location: 'javascript:alert(1)' });
      const res = await req('/auth/oauth2/authorize?client_id=cl_1');
      expect(res.status).toBe(502);
      expect(res.headers.get('location')).toBeNull();
    });

    it('the provider switched off: 404 page with oauth_server_disabled', async () => {
      answers['POST /oauth2/authorize'] = () =>
        json(404, { error: 'oauth_server_disabled', message: 'OAuth server is disabled' });
      const res = await req('/auth/oauth2/authorize?client_id=cl_1');
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('oauth_server_disabled');
    });
  });

  describe('POST /auth/oauth2/consent', () => {
    const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
    const consentPageFor = async (cookies: Record<string, string>, requestId = 'svc_ar_request1') => {
      answers['POST /oauth2/authorize'] = () => json(200, { ...CONSENT, requestId });
      const res = await req('/auth/oauth2/authorize?client_id=cl_1', { cookies });
      return csrfOf(await res.text());
    };
    const post = (
      cookies: Record<string, string>,
      form: Record<string, string>,
      headers: Record<string, string> = { origin: APP_ORIGIN },
    ) =>
      req('/auth/oauth2/consent', {
        method: 'POST',
        cookies,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form).toString(),
      });

    it('allow with the page token: the decision goes to the API with the user token, and 303 to its location', async () => {
      const { env, cookies } = await signedInBrowser(h);
      const csrf = await consentPageFor(cookies);
      answers['POST /oauth2/consent'] = () => json(200, { location: 'https://rp.example/cb?code=abc&state=s&iss=x' });
      const res = await post(cookies, { requestId: 'svc_ar_request1', csrf, decision: 'allow' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('https://rp.example/cb?code=abc&state=s&iss=x');
      const call = oauthCalls().find((c) => c.path === '/oauth2/consent');
      expect(JSON.parse(bodyText(call))).toEqual({ requestId: 'svc_ar_request1', decision: 'allow' });
      expect(call?.headers.get('authorization')).toBe(`Bearer ${env.token}`);
    });

    it('deny: 303 to the access_denied location', async () => {
      const { cookies } = await signedInBrowser(h);
      const csrf = await consentPageFor(cookies);
      answers['POST /oauth2/consent'] = () =>
        json(200, { location: 'https://rp.example/cb?error=access_denied&state=s' });
      const res = await post(cookies, { requestId: 'svc_ar_request1', csrf, decision: 'deny' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toContain('error=access_denied');
      expect(JSON.parse(bodyText(oauthCalls().at(-1))).decision).toBe('deny');
    });

    it('refused without the CSRF token, with a token of another request, and with a token of another session', async () => {
      const a = await signedInBrowser(h);
      const b = await signedInBrowser(h, { email: 'bob@example.com' });
      const tokenA = await consentPageFor(a.cookies);
      const tokenOther = await consentPageFor(a.cookies, 'svc_ar_other');
      h.upstream.length = 0;
      const missing = await post(a.cookies, { requestId: 'svc_ar_request1', decision: 'allow' });
      expect(missing.status).toBe(400);
      const wrongRequest = await post(a.cookies, { requestId: 'svc_ar_request1', csrf: tokenOther, decision: 'allow' });
      expect(wrongRequest.status).toBe(403);
      expect(await wrongRequest.text()).toContain('invalid_csrf_token');
      const otherSession = await post(b.cookies, { requestId: 'svc_ar_request1', csrf: tokenA, decision: 'allow' });
      expect(otherSession.status).toBe(403);
      expect(oauthCalls()).toEqual([]);
    });

    it('refused from another origin, and from a sibling site without Origin, even with a valid token', async () => {
      const { cookies } = await signedInBrowser(h);
      const csrf = await consentPageFor(cookies);
      h.upstream.length = 0;
      const form = { requestId: 'svc_ar_request1', csrf, decision: 'allow' };
      const cross = await post(cookies, form, { origin: 'https://evil.example' });
      expect(cross.status).toBe(403);
      expect(await cross.text()).toContain('cross_site_request_blocked');
      const sibling = await post(cookies, form, { 'sec-fetch-site': 'same-site' });
      expect(sibling.status).toBe(403);
      expect(oauthCalls()).toEqual([]);
    });

    it('without a session: 401 page, nothing sent upstream', async () => {
      const res = await post({}, { requestId: 'svc_ar_request1', csrf: 'x', decision: 'allow' });
      expect(res.status).toBe(401);
      expect(oauthCalls()).toEqual([]);
    });

    it('an expired request: the API envelope is shown as a page', async () => {
      const { cookies } = await signedInBrowser(h);
      const csrf = await consentPageFor(cookies);
      answers['POST /oauth2/consent'] = () =>
        json(400, { error: 'oauth_request_expired', message: 'Authorization request expired' });
      const res = await post(cookies, { requestId: 'svc_ar_request1', csrf, decision: 'allow' });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('oauth_request_expired');
    });
  });

  describe('client endpoints: passthrough with CORS', () => {
    it('POST /oauth2/token: the form body byte for byte, the client authorization, and the API headers unchanged; no cookies', async () => {
      const { env, cookies } = await signedInBrowser(h);
      answers['POST /oauth2/token'] = () =>
        new Response('{"error":"invalid_grant","error_description":"bad code"}', {
          status: 400,
          headers: {
            'content-type': 'application/json;charset=UTF-8',
            'cache-control': 'no-store',
            pragma: 'no-cache',
          },
        });
      const form =
        'grant_type=authorization_code&code=svc_ac_x%2By&redirect_uri=https%3A%2F%2Frp.example%2Fcb&code_verifier=abc~';
      const res = await req('/auth/oauth2/token', {
        method: 'POST',
        cookies,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: 'Basic Y2w6c2VjcmV0',
          origin: 'https://rp.example',
          accept: 'application/json',
        },
        body: form,
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toBe('{"error":"invalid_grant","error_description":"bad code"}');
      expect(res.headers.get('content-type')).toBe('application/json;charset=UTF-8');
      expect(res.headers.get('pragma')).toBe('no-cache');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.getSetCookie()).toEqual([]);
      const call = oauthCalls()[0];
      expect(bodyText(call)).toBe(form);
      expect(call?.headers.get('authorization')).toBe('Basic Y2w6c2VjcmV0');
      expect(call?.headers.get('authorization')).not.toContain(env.token);
      expect(call?.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
      expect(call?.headers.get('accept')).toBe('application/json');
      expect(call?.headers.get('x-svc-service-token')).toBeTruthy();
      expect(call?.headers.get('cookie')).toBeNull();
    });

    it('GET /oauth2/userinfo relays the WWW-Authenticate challenge; POST /oauth2/introspect has no CORS', async () => {
      answers['GET /oauth2/userinfo'] = () =>
        json(401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
      answers['POST /oauth2/introspect'] = () => json(200, { active: false });
      const info = await req('/auth/oauth2/userinfo', { headers: { authorization: 'Bearer nope' } });
      expect(info.status).toBe(401);
      expect(info.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect(oauthCalls()[0]?.headers.get('authorization')).toBe('Bearer nope');
      const intro = await req('/auth/oauth2/introspect', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'token=t',
      });
      expect(intro.status).toBe(200);
      expect(intro.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('answers the CORS preflight of token, userinfo, revoke, register, the metadata and the JWKS', async () => {
      for (const path of [
        '/oauth2/token',
        '/oauth2/userinfo',
        '/oauth2/revoke',
        '/oauth2/register',
        '/.well-known/openid-configuration',
        '/.well-known/oauth-authorization-server',
        '/.well-known/jwks.json',
      ]) {
        const res = await req(`/auth${path}`, {
          method: 'OPTIONS',
          headers: {
            origin: 'http://localhost:6274',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
          },
        });
        expect(res.status, path).toBe(204);
        expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
        expect(res.headers.get('access-control-allow-headers'), path).toBe(
          'authorization, content-type, mcp-protocol-version',
        );
        expect(res.headers.get('access-control-allow-credentials'), path).toBeNull();
      }
      expect(oauthCalls()).toEqual([]);
    });

    it('another method on a provider path: 405 with Allow', async () => {
      const res = await req('/auth/oauth2/token', { method: 'GET' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    });
  });

  describe('metadata and JWKS under the mount', () => {
    it('serves both discovery paths from GET /oauth2/metadata, cached, with CORS', async () => {
      const doc = {
        issuer: 'http://localhost:3000/auth',
        authorization_endpoint: 'http://localhost:3000/auth/oauth2/authorize',
      };
      answers['GET /oauth2/metadata'] = () => json(200, doc);
      const a = await req('/auth/.well-known/openid-configuration');
      const b = await req('/auth/.well-known/oauth-authorization-server');
      expect(a.status).toBe(200);
      expect(await a.json()).toEqual(doc);
      expect(await b.json()).toEqual(doc);
      expect(a.headers.get('access-control-allow-origin')).toBe('*');
      expect(a.headers.get('cache-control')).toBe('public, max-age=300');
      expect(h.upstream.filter((c) => c.path === '/oauth2/metadata')).toHaveLength(1);
    });

    it('forwards oauth_server_disabled without caching it', async () => {
      answers['GET /oauth2/metadata'] = () =>
        json(404, { error: 'oauth_server_disabled', message: 'OAuth server is disabled' });
      const res = await req('/auth/.well-known/openid-configuration');
      expect(res.status).toBe(404);
      expect((await res.json()).error).toBe('oauth_server_disabled');
      await req('/auth/.well-known/openid-configuration');
      expect(h.upstream.filter((c) => c.path === '/oauth2/metadata')).toHaveLength(2);
    });

    it("serves the API's JWKS at /auth/.well-known/jwks.json", async () => {
      const res = await req('/auth/.well-known/jwks.json');
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.keys[0]).toMatchObject({ kty: 'RSA' });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    });
  });
});
