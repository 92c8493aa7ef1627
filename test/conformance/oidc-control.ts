/**
 * The real OpenID provider of the OAuth cases, started once per target run,
 * plus a tiny loopback control endpoint so case files (in other processes)
 * can create provider accounts (`POST /accounts/<id>` with the claims) and
 * drive the provider's login and consent (`POST /authorize` with
 * `{authorizationUrl, accountId}` → `{code, state}`).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startOidcProvider } from '../helpers/oidc-provider.js';
import { APP_CALLBACK, OAUTH_CLIENT_SECRET } from './env.js';

export async function startOidcWithControl() {
  const op = await startOidcProvider({
    redirectUris: [APP_CALLBACK],
    clientId: 'svc-conformance-client',
    clientSecret: OAUTH_CLIENT_SECRET,
  });
  const control = createServer((req, res) => {
    const m = /^\/accounts\/([A-Za-z0-9._-]+)$/.exec(req.url ?? '');
    if (req.method !== 'POST' || (!m && req.url !== '/authorize')) {
      res.statusCode = 404;
      res.end();
      return;
    }
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      try {
        if (m) {
          op.setAccount(m[1]!, JSON.parse(body));
          res.statusCode = 204;
          res.end();
          return;
        }
        const { authorizationUrl, accountId } = JSON.parse(body) as { authorizationUrl: string; accountId: string };
        const { code, state } = await op.authorize(authorizationUrl, accountId);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ code, state }));
      } catch (err) {
        res.statusCode = 500;
        res.end(JSON.stringify({ error: (err as Error).message }));
      }
    });
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
  return {
    issuer: op.issuer,
    controlUrl,
    close: async () => {
      control.closeAllConnections();
      await new Promise<void>((resolve) => control.close(() => resolve()));
      await op.close();
    },
  };
}
