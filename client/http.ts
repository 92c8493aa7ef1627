/** One HTTP exchange with the adapter: URL building, JSON encoding and the error envelope (no token logic). */
import { invalidResponse, isObject, SvcError } from './errors.js';
import { parseStepUpChallenge } from './step-up-challenge.js';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface Exchange {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  credentials?: RequestCredentials;
}

/** A 2xx answer: `body` is the parsed JSON object, or null for an empty body (204). */
export interface Answer {
  status: number;
  body: Record<string, unknown> | null;
}

/** Seconds from the body's `retryAfterSeconds`, else the `Retry-After` header (integer seconds). */
function retryAfter(body: Record<string, unknown>, headers: Headers): number | null {
  const fromBody = body['retryAfterSeconds'];
  if (typeof fromBody === 'number' && Number.isFinite(fromBody) && fromBody >= 0) return fromBody;
  const header = headers.get('retry-after');
  return header && /^\d+$/.test(header.trim()) ? Number(header.trim()) : null;
}

/** Sends one request; rejects with `SvcError` for network failures, error envelopes and non-JSON answers. */
export async function exchange(fetchFn: FetchLike, x: Exchange): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', ...x.headers };
  const init: RequestInit = { method: x.method, headers };
  if (x.credentials) init.credentials = x.credentials;
  if (x.body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(x.body);
  }
  let res: Response;
  let text: string;
  try {
    res = await fetchFn(x.url, init);
    text = await res.text();
  } catch (e) {
    throw new SvcError('network_error', 0, `Auth server unreachable: ${(e as Error)?.message ?? String(e)}`, {
      cause: e,
    });
  }
  let parsed: unknown = null;
  if (text.trim() !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalidResponse(res.status, 'the body is not JSON');
    }
  }
  if (res.status < 200 || res.status > 299) {
    if (!isObject(parsed) || typeof parsed['error'] !== 'string')
      throw invalidResponse(res.status, `status ${res.status} without an error envelope`);
    const message = typeof parsed['message'] === 'string' ? parsed['message'] : undefined;
    const stepUp = parseStepUpChallenge(res.headers.get('www-authenticate'));
    throw new SvcError(parsed['error'], res.status, message, {
      retryAfterSeconds: retryAfter(parsed, res.headers),
      body: parsed,
      stepUp,
    });
  }
  if (parsed === null) return { status: res.status, body: null };
  if (!isObject(parsed)) throw invalidResponse(res.status, 'the body is not a JSON object');
  return { status: res.status, body: parsed };
}

/** `baseUrl` + path with each `:param` filled from `input` (one encoded segment each); returns the rest of `input`. */
export function fillPath(
  path: string,
  input: Record<string, unknown>,
): { path: string; rest: Record<string, unknown> } {
  const rest = { ...input };
  const filled = path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(value as string);
  });
  return { path: filled, rest };
}

/** Query string of a GET: scalars stringified, arrays repeated, null/undefined/objects dropped. */
export function queryString(input: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(input)) {
    for (const item of Array.isArray(v) ? v : [v]) {
      if (item === null || item === undefined || typeof item === 'object') continue;
      q.append(k, String(item));
    }
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}
