/**
 * OAuth login routes (contract §3.13): provider listing, start and callback,
 * and native ID-token sign-in (docs/contract-changes.md).
 * Pipeline order (§3.0): per-flow limiter (OA: `oauth:ip:<ip>` and
 * `oauth:provider:<id>:<ip>`), then schema validation, then the handler.
 */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import { publicProvider } from '../config/oauth-provider.js';
import type { AppEnv } from '../deps.js';
import { parseBody } from '../http/validate.js';
import { FLOW_LIMITS, flowLimit } from '../middleware/rate-limit.js';
import { completeIdTokenLogin } from '../services/oauth/id-token-login.js';
import { completeOAuthLogin, startOAuthLogin } from '../services/oauth/login.js';
import { requireUsableProvider, usableProviders } from '../services/oauth/providers.js';

const oauthLimit = flowLimit(
  FLOW_LIMITS.oauth,
  (c) => `${c.req.param('providerId') ?? ''}:${c.get('client').ipKey ?? 'unknown'}`,
);

export const startBody = z.object({
  redirectUri: z.optional(z.string().check(z.minLength(1), z.maxLength(2000))),
  returnTo: z.optional(z.string().check(z.minLength(1), z.maxLength(2000))),
});

/**
 * `binding` is the flow binding start returned (43 characters); it is required, but a
 * missing one answers `oauth_invalid_state` like a wrong one (the service decides), not a
 * schema failure, so old clients and forged callbacks see one code.
 */
export const callbackBody = z.object({
  code: z.string().check(z.minLength(1), z.maxLength(4096)),
  state: z.string().check(z.minLength(1), z.maxLength(8192)),
  binding: z.optional(z.string().check(z.maxLength(256))),
});

/**
 * Native ID-token sign-in. 16 KB bounds any real ID token (Apple's and Google's are ~1 KB) and
 * keeps an oversize one a 400 before any verification work; the nonce is the app's raw value.
 */
export const idTokenBody = z.object({
  idToken: z.string().check(z.minLength(1), z.maxLength(16_384)),
  nonce: z.string().check(z.minLength(16), z.maxLength(512)),
});

export const oauthRoutes = new Hono<AppEnv>()
  .get('/oauth/providers', async (c) => {
    const providers = await usableProviders(c.get('deps'));
    return c.json({ providers: providers.map(publicProvider) });
  })
  .post('/oauth/:providerId/start', oauthLimit, async (c) => {
    const deps = c.get('deps');
    const body = parseBody(c, startBody);
    const provider = await requireUsableProvider(deps, c.req.param('providerId'));
    return c.json(await startOAuthLogin(deps, { provider, ...body, client: c.get('client') }));
  })
  .post('/oauth/:providerId/callback', oauthLimit, async (c) => {
    const deps = c.get('deps');
    const body = parseBody(c, callbackBody);
    const provider = await requireUsableProvider(deps, c.req.param('providerId'));
    return c.json(
      await completeOAuthLogin(deps, {
        provider,
        code: body.code,
        state: body.state,
        ...(body.binding !== undefined ? { binding: body.binding } : {}),
        client: c.get('client'),
      }),
    );
  })
  .post('/oauth/:providerId/id-token', oauthLimit, async (c) => {
    const deps = c.get('deps');
    const body = parseBody(c, idTokenBody);
    const provider = await requireUsableProvider(deps, c.req.param('providerId'));
    return c.json(
      await completeIdTokenLogin(deps, { provider, idToken: body.idToken, nonce: body.nonce, client: c.get('client') }),
    );
  });
