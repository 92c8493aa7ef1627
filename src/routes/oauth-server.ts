/**
 * The provider's private routes the adapter calls (docs/oauth-provider.md):
 * `POST /oauth2/authorize` (the browser's query as `{params}`, with the
 * user's access token when signed in), `POST /oauth2/consent` (the consent
 * page's answer) and `GET /oauth2/metadata` (the discovery document).
 */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AccessAuth, AppEnv } from '../deps.js';
import { parseBody } from '../http/validate.js';
import { bearerToken, requireAccess, verifyAccess } from '../middleware/auth.js';
import { authorize } from '../services/oauth-server/authorize.js';
import { enabledProvider } from '../services/oauth-server/config.js';
import { answerConsent } from '../services/oauth-server/consent.js';
import { providerMetadata } from '../services/oauth-server/metadata.js';
import { requestHeader } from '../../common/hono-request.js';

/** Every query parameter of the browser's request; one given twice arrives as an array. */
export const oauthAuthorizeBody = z.object({
  params: z.record(
    z.string().check(z.maxLength(100)),
    z.union([z.string().check(z.maxLength(4096)), z.array(z.string().check(z.maxLength(4096))).check(z.maxLength(10))]),
  ),
});

export const oauthConsentBody = z.object({
  requestId: z.string().check(z.minLength(1), z.maxLength(200)),
  decision: z.enum(['allow', 'deny']),
});

export const oauthServerRoutes = new Hono<AppEnv>()
  .get('/oauth2/metadata', async (c) => {
    const cfg = await enabledProvider(c.get('deps'));
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(providerMetadata(cfg));
  })
  .post('/oauth2/authorize', async (c) => {
    const deps = c.get('deps');
    const cfg = await enabledProvider(deps);
    const { params } = parseBody(c, oauthAuthorizeBody);
    // Signed in or not: a missing, expired or dead session's token means "sign in first", never an error.
    let access: AccessAuth | null = null;
    if (bearerToken(requestHeader(c, 'authorization'))) access = await verifyAccess(c).catch(() => null);
    return c.json(await authorize(deps, cfg, params, access));
  })
  .post('/oauth2/consent', requireAccess, async (c) => {
    const deps = c.get('deps');
    const cfg = await enabledProvider(deps);
    const body = parseBody(c, oauthConsentBody);
    return c.json(await answerConsent(deps, cfg, c.get('access'), body, c.get('client')));
  });
