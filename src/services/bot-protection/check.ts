/**
 * The challenge check of one guarded route: off, or the token verified
 * server-side before the route does anything. Missing → 400
 * `challenge_required`; refused → 403 `challenge_failed`; provider outage →
 * 503 `challenge_unavailable` (`failMode: 'closed'`, the default) or a pass
 * with a `challenge_unavailable` event (`'open'`). A setup error (secret
 * unset, endpoint refused in production) always fails closed: it would
 * otherwise switch the protection off silently. Events carry the provider,
 * route and a reason code, never the token, the secret or the endpoint.
 */
import { challengeSecretEnvAllowed } from '../../config/bot-protection-secret.js';
import { guardedRoutes, siteverifyUrlProblem, type ChallengeRoute } from '../../config/bot-protection.js';
import type { Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { createVerifier, type FetchLike } from './verifier.js';

/** Turnstile tokens are at most 2048 characters (Cloudflare's server-side validation page); the others are shorter. */
export const CHALLENGE_TOKEN_MAX_LENGTH = 2048;
const TOKEN_SHAPE = /^[\x21-\x7e]+$/;

export interface ChallengeInput {
  route: ChallengeRoute;
  /** The `x-svc-challenge-token` header, as sent. */
  token: string | undefined;
  client: Pick<RequestContext, 'ip' | 'userAgent'>;
  /** Tests only: the verifier's fetch. */
  fetch?: FetchLike;
}

export async function checkChallenge(deps: Pick<Deps, 'config' | 'env' | 'events' | 'log'>, input: ChallengeInput) {
  const cfg = (await deps.config.get()).bot_protection;
  if (cfg.provider === 'none' || !guardedRoutes(cfg).includes(input.route)) return;
  const base = { provider: cfg.provider, route: input.route };
  const record = (type: 'challenge_failed' | 'challenge_unavailable', metadata: Record<string, unknown>) =>
    deps.events.record({
      type,
      ipAddress: input.client.ip,
      userAgent: input.client.userAgent,
      metadata: { ...base, ...metadata },
    });

  const token = input.token?.trim() ?? '';
  if (token === '') {
    await record('challenge_failed', { reason: 'missing' });
    throw fail('challenge_required');
  }
  if (token.length > CHALLENGE_TOKEN_MAX_LENGTH || !TOKEN_SHAPE.test(token)) {
    await record('challenge_failed', { reason: 'malformed' });
    throw fail('challenge_failed');
  }

  const setupError = async (reason: string, detail: string): Promise<never> => {
    deps.log.log('error', `bot protection: ${detail}`, { provider: cfg.provider });
    await record('challenge_unavailable', { reason, failMode: 'closed' });
    throw fail('challenge_unavailable');
  };
  // Checked again here, not only by the schema: the secret is posted to the endpoint.
  if (!challengeSecretEnvAllowed(cfg.secretEnv)) await setupError('secret_env_refused', 'secretEnv is not allowed');
  const secret = deps.env.raw[cfg.secretEnv]?.trim();
  if (!secret) await setupError('secret_missing', `the env variable ${cfg.secretEnv} is not set`);
  const urlProblem = cfg.siteverifyUrl
    ? siteverifyUrlProblem(cfg.provider, cfg.siteverifyUrl, deps.env.production)
    : null;
  if (urlProblem) await setupError('siteverify_url_refused', `siteverifyUrl ${urlProblem}`);

  const verifier = createVerifier({
    config: cfg,
    secret: secret!,
    ...(cfg.siteverifyUrl ? { url: cfg.siteverifyUrl } : {}),
    ...(input.fetch ? { fetch: input.fetch } : {}),
  });
  const result = await verifier.verify(token, input.client.ip);
  if (result.ok) return;
  if (!result.unavailable) {
    await record('challenge_failed', { reason: result.reason });
    throw fail('challenge_failed');
  }
  const failMode = cfg.failMode ?? 'closed';
  await record('challenge_unavailable', { reason: result.reason, failMode });
  if (failMode === 'closed') throw fail('challenge_unavailable');
}
