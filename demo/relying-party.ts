/**
 * A second tiny app that signs in through the demo ("Sign in with svc demo"), as any other app of a
 * team would: OpenID Connect with `openid-client` (a certified relying-party library) — discovery,
 * PKCE (S256), state, nonce, the code exchange with the ID token checked, userinfo, refresh and
 * revocation. `npm run demo:rp` starts it on http://localhost:3001 next to `npm start`.
 *
 * The client: `RP_CLIENT_ID` / `RP_CLIENT_SECRET` (a confidential client an administrator created
 * with redirect URI `<RP_ORIGIN>/callback`), else it registers itself dynamically (RFC 7591) when the
 * provider allows it (the development seed does). Sessions live in memory: it is a demo.
 */
import { Hono, type Context } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import * as oidc from 'openid-client';

export interface RelyingPartyOptions {
  /** The provider's issuer: the demo's adapter mount, `http://localhost:3000/auth`. */
  issuer: string;
  /** This app's origin; the redirect URI is `<origin>/callback`. */
  origin: string;
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  /** Scopes to ask (default `openid email profile offline_access`). */
  scope?: string;
}

interface Flow {
  verifier: string;
  state: string;
  nonce: string;
  atMs: number;
}
interface Session {
  sub: string;
  idClaims: Record<string, unknown>;
  userinfo: Record<string, unknown>;
  accessToken: string;
  refreshToken: string | undefined;
  refreshedAt: string | null;
}

const FLOW_TTL_MS = 10 * 60_000;
const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (v: unknown) => String(v).replace(/[&<>"']/g, (c) => ESC[c]!);

const page = (body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Relying party demo</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}
pre{background:#f3f4f6;padding:.75rem;border-radius:6px;overflow:auto}button{font:inherit;padding:.5rem 1rem;margin-right:.5rem}
a.button{display:inline-block;background:#1f5fd1;color:#fff;padding:.6rem 1.2rem;border-radius:8px;text-decoration:none}</style>
</head><body><main>${body}</main></body></html>`;

/** The relying-party app (exported for the end-to-end test, which starts it on a port of its own). */
export function createRelyingParty(opts: RelyingPartyOptions) {
  const redirectUri = `${opts.origin}/callback`;
  const scope = opts.scope ?? 'openid email profile offline_access';
  const insecure = new URL(opts.issuer).protocol === 'http:';
  const execute = insecure ? [oidc.allowInsecureRequests] : [];
  let config: Promise<oidc.Configuration> | null = null;
  const configuration = () => {
    config ??= (
      opts.clientId
        ? oidc.discovery(
            new URL(opts.issuer),
            opts.clientId,
            undefined,
            // An administrator's confidential client authenticates with HTTP Basic (the provider's default method).
            opts.clientSecret ? oidc.ClientSecretBasic(opts.clientSecret) : oidc.None(),
            { execute },
          )
        : oidc.dynamicClientRegistration(
            new URL(opts.issuer),
            {
              client_name: 'Relying party demo',
              redirect_uris: [redirectUri],
              grant_types: ['authorization_code', 'refresh_token'],
              response_types: ['code'],
              token_endpoint_auth_method: 'client_secret_basic',
            },
            undefined,
            { execute },
          )
    ).catch((e) => {
      config = null; // retried on the next sign-in (the provider may not be up yet)
      throw e;
    });
    return config;
  };
  const flows = new Map<string, Flow>();
  const sessions = new Map<string, Session>();
  const cookie = { httpOnly: true, sameSite: 'Lax' as const, path: '/', secure: !insecure };
  const sessionOf = (c: Context) => sessions.get(getCookie(c, 'rp-session') ?? '');

  const app = new Hono();
  app.use('*', async (c, next) => {
    await next();
    c.header('cache-control', 'no-store');
    c.header('x-frame-options', 'DENY');
    c.header(
      'content-security-policy',
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'",
    );
  });

  app.get('/', (c) => {
    const s = sessionOf(c);
    if (!s)
      return c.html(
        page(
          `<h1>Relying party demo</h1><p>Not signed in.</p><p><a class="button" id="sign-in" href="/login">Sign in with svc demo</a></p>`,
        ),
      );
    return c.html(
      page(`<h1>Relying party demo</h1>
<p id="who">Signed in as <strong>${esc(s.userinfo['email'] ?? s.sub)}</strong> (subject <code>${esc(s.sub)}</code>)</p>
<h2>ID token claims (checked by openid-client)</h2><pre id="id-claims">${esc(JSON.stringify(s.idClaims, null, 2))}</pre>
<h2>Userinfo</h2><pre id="userinfo">${esc(JSON.stringify(s.userinfo, null, 2))}</pre>
${s.refreshedAt ? `<p id="refreshed">Tokens refreshed at ${esc(s.refreshedAt)}</p>` : ''}
<form method="post" action="/refresh"><button id="refresh" ${s.refreshToken ? '' : 'disabled'}>Refresh tokens</button></form>
<form method="post" action="/logout"><button id="sign-out">Sign out (revokes the refresh token)</button></form>`),
    );
  });

  app.get('/login', async (c) => {
    const cfg = await configuration();
    const flowId = oidc.randomState();
    const flow: Flow = {
      verifier: oidc.randomPKCECodeVerifier(),
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      atMs: Date.now(),
    };
    for (const [id, f] of flows) if (Date.now() - f.atMs > FLOW_TTL_MS) flows.delete(id);
    flows.set(flowId, flow);
    setCookie(c, 'rp-flow', flowId, { ...cookie, maxAge: FLOW_TTL_MS / 1000 });
    const url = oidc.buildAuthorizationUrl(cfg, {
      redirect_uri: redirectUri,
      scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    return c.redirect(url.href, 303);
  });

  app.get('/callback', async (c) => {
    const flowId = getCookie(c, 'rp-flow') ?? '';
    const flow = flows.get(flowId);
    flows.delete(flowId);
    deleteCookie(c, 'rp-flow', cookie);
    if (!flow) return c.html(page('<h1>Sign-in expired</h1><p><a href="/">Start again</a></p>'), 400);
    const cfg = await configuration();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(cfg, new URL(c.req.url), {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
    } catch (e) {
      const err = e as { error?: string; message?: string };
      return c.html(
        page(
          `<h1>Sign-in failed</h1><p id="error">${esc(err.error ?? err.message ?? 'error')}</p><p><a href="/">Back</a></p>`,
        ),
        400,
      );
    }
    const idClaims = tokens.claims()!;
    const userinfo = await oidc.fetchUserInfo(cfg, tokens.access_token, idClaims.sub);
    const id = oidc.randomState();
    sessions.set(id, {
      sub: idClaims.sub,
      idClaims: { ...idClaims },
      userinfo: { ...userinfo },
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      refreshedAt: null,
    });
    setCookie(c, 'rp-session', id, cookie);
    return c.redirect('/', 303);
  });

  app.post('/refresh', async (c) => {
    const s = sessionOf(c);
    if (!s?.refreshToken) return c.redirect('/', 303);
    const tokens = await oidc.refreshTokenGrant(await configuration(), s.refreshToken);
    s.accessToken = tokens.access_token;
    s.refreshToken = tokens.refresh_token ?? s.refreshToken;
    s.userinfo = { ...(await oidc.fetchUserInfo(await configuration(), s.accessToken, s.sub)) };
    s.refreshedAt = new Date().toISOString();
    return c.redirect('/', 303);
  });

  app.post('/logout', async (c) => {
    const id = getCookie(c, 'rp-session') ?? '';
    const s = sessions.get(id);
    sessions.delete(id);
    deleteCookie(c, 'rp-session', cookie);
    if (s?.refreshToken) await oidc.tokenRevocation(await configuration(), s.refreshToken).catch(() => {});
    return c.redirect('/', 303);
  });

  return { app, sessions };
}

/** `npm run demo:rp`. */
async function main() {
  const { serve } = await import('@hono/node-server');
  const port = Number(process.env['RP_PORT'] ?? 3001);
  const origin = process.env['RP_ORIGIN'] ?? `http://localhost:${port}`;
  const issuer = process.env['RP_ISSUER'] ?? 'http://localhost:3000/auth';
  const { app } = createRelyingParty({
    issuer,
    origin,
    clientId: process.env['RP_CLIENT_ID'],
    clientSecret: process.env['RP_CLIENT_SECRET'],
  });
  serve({ fetch: app.fetch, port, hostname: 'localhost' });
  console.log(`\n  relying party  ${origin}   (signs in through ${issuer}; start \`npm start\` first)\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
