/**
 * The MCP SDK's OAuth client, as an MCP host (Claude, an IDE) runs it: an
 * `OAuthClientProvider` that keeps its registration, tokens and PKCE verifier
 * in memory, registers itself dynamically with a loopback redirect URI, and
 * hands the authorization URL to a real browser page (`redirectToAuthorization`).
 * A loopback HTTP server receives the redirect and resolves with its query.
 */
import { createServer, type Server } from 'node:http';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/** A loopback redirect target: every request to `/callback` is recorded and answered with a tiny page. */
export async function loopbackCallback(): Promise<{
  url: string;
  next: () => Promise<URLSearchParams>;
  close: () => Promise<void>;
}> {
  const waiting: ((q: URLSearchParams) => void)[] = [];
  const received: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>Done</title><p>You can close this window.</p>');
    const resolve = waiting.shift();
    if (resolve) resolve(url.searchParams);
    else received.push(url.searchParams);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const ready = received.shift();
      return ready ? Promise.resolve(ready) : new Promise((r) => waiting.push(r));
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export class BrowserOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  stored?: OAuthTokens;
  verifier = '';
  /** Every authorization URL the SDK asked us to open. */
  readonly authorizationUrls: URL[] = [];
  readonly tokenHistory: OAuthTokens[] = [];

  constructor(
    private readonly redirect: string,
    /** Opens the authorization URL (in the browser); replaceable between steps. */
    public open: (url: URL) => Promise<void>,
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'svc e2e MCP host',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
    this.tokenHistory.push(tokens);
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    await this.open(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
  }
}
