/**
 * One interface over the three siteverify APIs: `verify(token, remoteIp)`.
 * All three take the same form-encoded POST (`secret`, `response`,
 * `remoteip`) and answer `{success, "error-codes"}`; reCAPTCHA v3 adds a
 * `score`. The provider's answer is never relayed: only a short reason code
 * (the provider's first error code, or ours) reaches events and logs.
 */
import {
  PROVIDER_ENDPOINTS,
  type BotProtectionOn,
  type BotProtectionProvider,
  DEFAULT_CHALLENGE_TIMEOUT_MS,
} from '../../config/bot-protection.js';

/**
 * `ok: false` with `unavailable: true` is an outage (network error, timeout,
 * 5xx, unreadable answer, a provider-side or secret error): the configured
 * fail mode decides. Without it, the token itself was refused.
 */
export type VerifyResult = { ok: true } | { ok: false; reason: string; unavailable: boolean };

export interface ChallengeVerifier {
  readonly provider: BotProtectionProvider;
  verify(token: string, remoteIp: string | null): Promise<VerifyResult>;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Error codes that say the provider or our own setup failed, not the visitor (each provider's documented list). */
const OUTAGE_CODES = new Set([
  'internal-error',
  'missing-input-secret',
  'invalid-input-secret',
  'sitekey-secret-mismatch',
  'invalid-or-already-seen-response-secret',
]);

const reasonCode = (v: unknown): string =>
  typeof v === 'string' && /^[a-z0-9-]{1,64}$/.test(v) ? v : 'provider-refused';

export interface VerifierOptions {
  config: BotProtectionOn;
  secret: string;
  /** The endpoint after the production check (`siteverifyUrlProblem`). */
  url?: string;
  fetch?: FetchLike;
}

export function createVerifier(opts: VerifierOptions): ChallengeVerifier {
  const { config, secret } = opts;
  const url = opts.url ?? PROVIDER_ENDPOINTS[config.provider].url;
  const doFetch: FetchLike = opts.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = config.timeoutMs ?? DEFAULT_CHALLENGE_TIMEOUT_MS;
  return {
    provider: config.provider,
    async verify(token, remoteIp) {
      const form = new URLSearchParams({ secret, response: token });
      if (remoteIp) form.set('remoteip', remoteIp);
      // hCaptcha checks the token was issued for this site key when it is sent.
      if (config.provider === 'hcaptcha') form.set('sitekey', config.siteKey);
      let res: Response;
      try {
        res = await doFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
          signal: AbortSignal.timeout(timeoutMs),
          // A redirect would re-send the secret somewhere the URL check never saw.
          redirect: 'manual',
        });
      } catch (err) {
        const timeout = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
        return { ok: false, reason: timeout ? 'timeout' : 'network-error', unavailable: true };
      }
      if (res.status >= 300 || res.status < 200) {
        await res.body?.cancel().catch(() => {});
        return { ok: false, reason: `http-${res.status}`, unavailable: true };
      }
      let body: { success?: unknown; 'error-codes'?: unknown; score?: unknown };
      try {
        body = (await res.json()) as typeof body;
      } catch {
        return { ok: false, reason: 'unreadable-answer', unavailable: true };
      }
      if (typeof body !== 'object' || body === null || typeof body.success !== 'boolean')
        return { ok: false, reason: 'unreadable-answer', unavailable: true };
      const codes = Array.isArray(body['error-codes']) ? body['error-codes'] : [];
      if (!body.success) {
        const outage = codes.find((c) => typeof c === 'string' && OUTAGE_CODES.has(c));
        if (outage) return { ok: false, reason: outage as string, unavailable: true };
        return { ok: false, reason: reasonCode(codes[0]), unavailable: false };
      }
      if (config.minScore !== undefined && typeof body.score === 'number' && body.score < config.minScore)
        return { ok: false, reason: 'score-too-low', unavailable: false };
      return { ok: true };
    },
  };
}
