/**
 * Keyed refresh attempts: every refresh sends an `Idempotency-Key`.
 * A lost answer (network error, 502, 503) may follow a rotation the API
 * committed; presenting the same refresh token with the same key then gets a
 * fresh rotation, while any other replay revokes the session. So the key
 * lives as long as the attempt: one retry right away, and a later refresh of
 * the same credential (the attempt never got an answer) sends it again. An
 * answer, success or refusal, ends the attempt; the next refresh gets a new key.
 * The key stays in memory only.
 */
import { newIdempotencyKey } from '../common/idempotency-key.js';
import { SvcError } from './errors.js';

export const REFRESH_RETRY_DELAY_MS = 250;

/** No answer, or a gateway/busy answer (JSON or not): the refresh may have committed. */
export const isLostAnswer = (e: unknown): boolean =>
  e instanceof SvcError && (e.code === 'network_error' || e.status === 502 || e.status === 503);

/**
 * `run(credential, send)`: sends with the key of the credential's open attempt (or a new one), retries a lost answer
 * once. `credential` is the refresh token (bearer) or a constant (cookie transport: the adapter holds the token).
 */
export function createRefreshAttempts(delayMs = REFRESH_RETRY_DELAY_MS) {
  let open: { credential: string; key: string } | null = null;
  return async function run<T>(credential: string, send: (idempotencyKey: string) => Promise<T>): Promise<T> {
    const attempt = open?.credential === credential ? open : { credential, key: newIdempotencyKey() };
    open = attempt;
    const end = () => {
      if (open === attempt) open = null;
    };
    for (let tries = 1; ; tries++) {
      try {
        const answer = await send(attempt.key);
        end();
        return answer;
      } catch (e) {
        // A lost answer keeps the attempt (and its key) open for a later refresh of the same credential.
        if (!isLostAnswer(e)) end();
        if (!isLostAnswer(e) || tries >= 2) throw e;
      }
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  };
}
