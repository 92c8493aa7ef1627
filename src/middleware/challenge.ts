/**
 * `requireChallenge(route)`: the bot-protection check of a route that sends
 * or creates (`bot_protection`, docs/bot-protection.md). The token travels in
 * the `x-svc-challenge-token` header on every guarded route, so the body
 * schemas stay as they are and the adapters forward one header.
 */
import type { MiddlewareHandler } from 'hono';
import { requestHeader } from '../../common/hono-request.js';
import type { ChallengeRoute } from '../config/bot-protection.js';
import type { AppEnv } from '../deps.js';
import { checkChallenge } from '../services/bot-protection/check.js';

export const CHALLENGE_TOKEN_HEADER = 'x-svc-challenge-token';

export const requireChallenge =
  (route: ChallengeRoute): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    await checkChallenge(c.get('deps'), {
      route,
      token: requestHeader(c, CHALLENGE_TOKEN_HEADER),
      client: c.get('client'),
    });
    await next();
  };
