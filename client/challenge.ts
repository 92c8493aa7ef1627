/**
 * Bot protection on the client (docs/bot-protection.md): when the deployment
 * turns `bot_protection` on, the sign-in start, the registration and every
 * code or link send carry a challenge token (Turnstile, hCaptcha or
 * reCAPTCHA) in `x-svc-challenge-token`. The client asks the app's
 * `challengeToken` hook for one right before each of those calls: a token
 * is single-use, so each call needs a fresh one.
 */
import type { RouteName } from './routes.js';

/** The routes `botProtection.routes` (GET /system-config/public) can list. */
export type ChallengeRoute = 'login' | 'register' | 'email_otp' | 'phone_otp' | 'magic_link';

/**
 * Returns the token for the call about to be sent (e.g. the Turnstile
 * widget's current response), or nothing to send the call without one.
 */
export type ChallengeTokenProvider = (
  route: ChallengeRoute,
) => string | null | undefined | Promise<string | null | undefined>;

export const CHALLENGE_TOKEN_HEADER = 'x-svc-challenge-token';

/** The client methods a challenge can guard, and the route name the config uses for each. */
export const CHALLENGE_ROUTE_OF: Partial<Record<RouteName, ChallengeRoute>> = {
  login: 'login',
  register: 'register',
  sendEmailOtp: 'email_otp',
  sendLoginEmailOtp: 'email_otp',
  sendPhoneOtp: 'phone_otp',
  sendLoginPhoneOtp: 'phone_otp',
  requestMagicLink: 'magic_link',
};

/** The header to send with `name`, when it is guarded and the hook gives a token. */
export async function challengeHeaders(
  provider: ChallengeTokenProvider | undefined,
  name: RouteName,
): Promise<Record<string, string> | undefined> {
  const route = CHALLENGE_ROUTE_OF[name];
  if (!provider || !route) return undefined;
  const token = await provider(route);
  return typeof token === 'string' && token !== '' ? { [CHALLENGE_TOKEN_HEADER]: token } : undefined;
}
