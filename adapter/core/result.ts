/**
 * Return values of the core (expected failures are values, never throws). Primitives return a `Result`;
 * handlers return a `HandlerResult`, a response plan each adapter applies
 * (clears before sets, every cookie before the body; contract §5.4).
 */
import type { AdapterErrorCode, CookiePayload } from '../../common/contract.js';
import type { AuthMessage } from '../../common/messaging.js';

export type Result<T, E = CoreError> = { ok: true; value: T } | { ok: false; error: E };

export interface CoreError {
  code: AdapterErrorCode;
  status: number;
  message?: string;
}

/** A cookie to set: the adapter signs `payload` and writes it with Max-Age `maxAge` (seconds). */
export interface SetCookieCommand {
  name: string;
  payload: CookiePayload;
  maxAge: number;
}

/** A response plan. `body` undefined means an empty body. */
export interface HandlerResult {
  status: number;
  body?: unknown;
  setCookies?: SetCookieCommand[];
  /** Cookie names to clear (deduplicated by the adapter). */
  clearCookies?: string[];
  /** Messages to deliver after the response is decided (not awaited). */
  deliveries?: AuthMessage[];
  /** Upstream headers worth relaying (`Retry-After` on 423/429). */
  headers?: Record<string, string>;
  /**
   * A body sent as it is instead of `body` as JSON: the provider's HTML pages and the API's
   * answers to OAuth clients, relayed unchanged (`headers` then carries its `content-type`).
   */
  rawBody?: string;
}

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });

const DEFAULT_MESSAGES: Partial<Record<AdapterErrorCode, string>> = {
  invalid_request: 'Malformed JSON body',
  payload_too_large: 'Payload too large',
  cross_site_request_blocked: 'Cross-site request blocked',
  upstream_unavailable: 'Auth server unreachable',
  upstream_error: 'Unexpected response from auth server',
  invalid_upstream_response: 'Invalid signed response from auth server',
  internal_error: 'Internal server error',
};

/** An adapter-decided failure `{error, message?}` (contract §5.13). */
export function failure(
  status: number,
  code: AdapterErrorCode,
  message?: string | null,
  extra?: Partial<HandlerResult>,
): HandlerResult {
  const text = message === null ? undefined : (message ?? DEFAULT_MESSAGES[code]);
  return { status, body: text === undefined ? { error: code } : { error: code, message: text }, ...extra };
}
