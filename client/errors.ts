/** The one error type of the client: every failed call rejects with a `SvcError` (bad arguments throw `TypeError`). */
import type { StepUpChallenge } from './step-up-challenge.js';

/**
 * Codes the client produces by itself, besides the contract's codes
 * (contract §0.4) that it passes through unchanged.
 * - `invalid_response`: the answer was not JSON or not the expected shape.
 * - `network_error`: `fetch` rejected (offline, DNS, CORS…).
 * - `storage_failed`: the bearer token storage threw; the tokens in memory are kept.
 * - `signed_out`: a signed-in call without a session (no network call was made).
 * - `webauthn_unavailable`: this browser has no WebAuthn.
 */
export type ClientErrorCode =
  | 'invalid_response'
  | 'network_error'
  | 'storage_failed'
  | 'signed_out'
  | 'webauthn_unavailable';

/**
 * A failed call: `code` is the contract's stable `error` (or a {@link ClientErrorCode}),
 * `status` the HTTP status (0 when no answer was involved).
 *
 * @example
 * try { await client.verifyLoginEmailOtp({ verificationToken: code }) }
 * catch (e) {
 *   if (e instanceof SvcError && e.code === 'rate_limited') wait(e.retryAfterSeconds);
 * }
 */
export class SvcError extends Error {
  override readonly name = 'SvcError';
  /** Stable, snake_case: branch on this. */
  readonly code: string;
  readonly status: number;
  /** From the body's `retryAfterSeconds` or the `Retry-After` header (429, 423); else null. */
  readonly retryAfterSeconds: number | null;
  /** The error envelope as received (extras such as `required` or `fresh`), or null. */
  readonly body: Record<string, unknown> | null;
  /**
   * The RFC 9470 challenge of a 403 `step_up_required` in bearer transport
   * (`WWW-Authenticate`): step up (passkey or TOTP) within `maxAgeSeconds`, then retry. Else null.
   */
  readonly stepUp: StepUpChallenge | null;

  constructor(
    code: string,
    status: number,
    message?: string,
    opts: {
      retryAfterSeconds?: number | null;
      body?: Record<string, unknown> | null;
      stepUp?: StepUpChallenge | null;
      cause?: unknown;
    } = {},
  ) {
    super(message || code, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = code;
    this.status = status;
    this.retryAfterSeconds = opts.retryAfterSeconds ?? null;
    this.body = opts.body ?? null;
    this.stepUp = opts.stepUp ?? null;
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const invalidResponse = (status: number, why: string) =>
  new SvcError('invalid_response', status, `Unexpected answer from the auth server: ${why}`);
