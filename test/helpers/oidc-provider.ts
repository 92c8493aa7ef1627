/**
 * A real OpenID provider (`oidc-provider` v9) on 127.0.0.1 for the OAuth tests.
 * It issues real codes, real tokens, real id_tokens and a real userinfo
 * response, requires PKCE (S256) for every authorization request, and is
 * driven by plain HTTP requests through its development login and consent
 * interactions (no browser): `authorize(url, login)` follows the
 * authorization URL, posts the login and consent forms and returns the
 * `code` and `state` of the final redirect to the app.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccountClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** The provider-config fields pointing at this provider (merge into an OAuthProviderConfig). */
  endpoints: { authorizationUrl: string; tokenUrl: string; userInfoUrl: string };
  /** Sets (or replaces) the claims the account finder returns for `accountId`. */
  setAccount(accountId: string, claims: TestAccountClaims): void;
  /** Follows an authorization URL through login + consent; resolves to the redirect parameters. */
  authorize(authorizationUrl: string, accountId: string): Promise<{ redirect: URL; code: string; state: string }>;
  /** How many requests reached the token endpoint so far (a code exchange the API attempted). */
  tokenRequests(): number;
  close(): Promise<void>;
}

type CookieJar = Map<string, string>;

function storeCookies(jar: CookieJar, res: Response) {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
}

const cookieHeader = (jar: CookieJar) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

export interface StartOidcProviderOptions {
  redirectUris: string[];
  clientId?: string;
  clientSecret?: string;
  /** More registered clients (same redirect URIs): an app of someone else, for audience tests. */
  extraClients?: { clientId: string; clientSecret: string }[];
  /** The private signing keys (JWK set); default: oidc-provider's development keys. */
  jwks?: { keys: Record<string, unknown>[] };
  /** Puts the scope claims (email, name) in the ID token too, as native sign-in sheets do. */
  idTokenClaims?: boolean;
}

export async function startOidcProvider(opts: StartOidcProviderOptions): Promise<TestOidcProvider> {
  const accounts = new Map<string, TestAccountClaims>();
  const clientId = opts.clientId ?? 'svc-test-client';
  const clientSecret = opts.clientSecret ?? 'provider-client-secret-0123456789abcdef';

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const provider = new Provider(issuer, {
    clients: [{ clientId, clientSecret }, ...(opts.extraClients ?? [])].map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: opts.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    })),
    ...(opts.jwks ? { jwks: opts.jwks } : {}),
    ...(opts.idTokenClaims ? { conformIdTokenClaims: false } : {}),
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 120, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['oidc-test-cookie-key-0123456789abcdef'] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx: unknown, sub: string) {
      const claims = accounts.get(sub);
      if (!claims) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...claims }) };
    },
  });
  provider.on('server_error', (_ctx: unknown, err: Error) => console.error('oidc-provider server_error', err));

  async function authorize(authorizationUrl: string, accountId: string) {
    const jar: CookieJar = new Map();
    const go = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(url, {
        ...init,
        redirect: 'manual',
        headers: { ...(init.headers as Record<string, string>), cookie: cookieHeader(jar) },
      });
      storeCookies(jar, res);
      await res.arrayBuffer();
      return res;
    };
    let res = await go(authorizationUrl);
    for (let hop = 0; hop < 12; hop++) {
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) {
        throw new Error(`oidc-provider: unexpected ${res.status} during authorization`);
      }
      const next = new URL(location, issuer);
      if (next.origin !== issuer) {
        const code = next.searchParams.get('code');
        const state = next.searchParams.get('state');
        if (!code || !state)
          throw new Error(`oidc-provider: redirect without code (${next.searchParams.get('error') ?? 'no error'})`);
        return { redirect: next, code, state };
      }
      const interaction = /^\/interaction\/([^/]+)$/.exec(next.pathname);
      if (interaction) {
        // Load the interaction page (as a browser would), then submit its form.
        const page = await go(next.href);
        if (page.status !== 200) throw new Error(`oidc-provider: interaction page ${page.status}`);
        const details = await fetch(`${issuer}/__interaction-prompt/${interaction[1]}`, {
          headers: { cookie: cookieHeader(jar) },
        });
        const prompt = (await details.json()) as { name: string };
        const form: Record<string, string> =
          prompt.name === 'login' ? { prompt: 'login', login: accountId, password: 'any' } : { prompt: 'consent' };
        res = await go(next.href, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form).toString(),
        });
        continue;
      }
      res = await go(next.href);
    }
    throw new Error('oidc-provider: too many redirects');
  }

  // A tiny helper route for the driver: which prompt is the interaction waiting for?
  const callback = provider.callback();
  let tokenRequests = 0;
  server.on('request', async (req, res) => {
    if ((req.url ?? '').startsWith('/token')) tokenRequests++;
    const m = /^\/__interaction-prompt\/([^/?]+)/.exec(req.url ?? '');
    if (m) {
      const interaction = await provider.Interaction.find(m[1]);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ name: interaction?.prompt?.name ?? 'unknown' }));
      return;
    }
    callback(req, res);
  });

  return {
    issuer,
    clientId,
    clientSecret,
    redirectUris: opts.redirectUris,
    endpoints: { authorizationUrl: `${issuer}/auth`, tokenUrl: `${issuer}/token`, userInfoUrl: `${issuer}/me` },
    setAccount: (id, claims) => accounts.set(id, claims),
    authorize,
    tokenRequests: () => tokenRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
