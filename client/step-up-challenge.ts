/**
 * RFC 9470 §3: the `WWW-Authenticate: Bearer error="insufficient_user_authentication"`
 * challenge of a 403 `step_up_required`.
 */

/** What the API asks for: a step-up at most `maxAgeSeconds` old, of one of `acrValues` (empty = any). */
export interface StepUpChallenge {
  maxAgeSeconds: number | null;
  acrValues: string[];
  description: string | null;
}

const PARAM = /([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))/g;

/**
 * Parses the `Bearer` challenge; null unless its `error` is
 * `insufficient_user_authentication`. `max_age` may be a token or a quoted string.
 *
 * @example
 * parseStepUpChallenge('Bearer error="insufficient_user_authentication", max_age=300')
 * // { maxAgeSeconds: 300, acrValues: [], description: null }
 */
export function parseStepUpChallenge(header: string | null): StepUpChallenge | null {
  const m = header ? /(?:^|,)\s*Bearer\s+(.*)$/i.exec(header) : null;
  if (!m) return null;
  const params: Record<string, string> = {};
  for (const [, name, quoted, token] of m[1]!.matchAll(PARAM))
    params[name!.toLowerCase()] ??= quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : token!;
  if (params['error'] !== 'insufficient_user_authentication') return null;
  const maxAge = params['max_age'];
  return {
    maxAgeSeconds: maxAge !== undefined && /^\d+$/.test(maxAge) ? Number(maxAge) : null,
    acrValues: params['acr_values']?.split(' ').filter(Boolean) ?? [],
    description: params['error_description'] ?? null,
  };
}
