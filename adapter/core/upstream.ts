/**
 * Upstream calls to the auth API (contract §5.2): URL building, query
 * forwarding, service-token and client headers, a 10 s timeout, JSON parsing.
 * Only the headers listed here are sent: browser cookies, the transport header
 * and every other browser header never reach the API (a refresh's
 * `Idempotency-Key` is set by refresh-call.ts, checked, not copied blindly). Only the JSON body,
 * `Retry-After` and `WWW-Authenticate` (RFC 9470 step-up challenge) of the
 * answer are relayed, so hop-by-hop headers never leak back.
 */
import type { FetchLike } from './options.js';

export const UPSTREAM_TIMEOUT_MS = 10_000;
const MAX_UA_LENGTH = 512;
/** The longest challenge token a provider issues (Turnstile: 2048); anything else is not forwarded. */
const CHALLENGE_TOKEN = /^[\x21-\x7e]{1,2048}$/;

export interface ClientInfo {
  ip?: string | undefined;
  userAgent?: string | undefined;
  /**
   * A coarse place of the client (`Lyon, FR`) when the platform knows it
   * (Cloudflare's `request.cf`); sent as `x-svc-client-geo`.
   */
  geo?: string | undefined;
  /**
   * The browser's `x-svc-challenge-token` (bot protection, docs/bot-protection.md):
   * the API verifies it with the provider; the adapter only forwards it.
   */
  challengeToken?: string | undefined;
}

export interface UpstreamRequest {
  method: string;
  /** Raw API path, already parameter-encoded. */
  path: string;
  query?: Record<string, unknown>;
  /** The `Authorization` value to send (the route credential), or none. */
  authorization?: string | null;
  /** `x-svc-service-token` value. */
  serviceToken: string;
  /** Adds `x-svc-auth-delivery-mode: external`. */
  delivery?: boolean;
  /** `Idempotency-Key` (refresh only; already checked against its pattern). */
  idempotencyKey?: string;
  /** Parsed JSON body; `undefined` sends none. */
  body?: unknown;
  client: ClientInfo;
}

export type UpstreamResponse =
  | { ok: true; status: number; body: unknown; retryAfter: string | null; wwwAuthenticate?: string }
  | { ok: false; reason: 'unreachable' };

/** Query forwarding: scalars stringified, arrays repeated, null and objects dropped, no `?` when empty. */
export function buildQuery(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  const add = (k: string, v: unknown) => {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint')
      params.append(k, String(v));
  };
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v)) v.forEach((item) => add(k, item));
    else add(k, v);
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** Fills `:param` segments, each `encodeURIComponent`-encoded into one segment. */
export function fillPath(pattern: string, params: Record<string, string>): string {
  return pattern.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-fA-F:.]{2,45}$/;

/** Returns the value when it is an IPv4 or IPv6 literal (IPv4-mapped IPv6 unwrapped), else undefined. */
export function ipLiteral(value: string | undefined | null): string | undefined {
  if (!value) return undefined;
  let v = value.trim();
  if (v.startsWith('[') && v.endsWith(']')) v = v.slice(1, -1);
  if (v.toLowerCase().startsWith('::ffff:') && IPV4.test(v.slice(7))) v = v.slice(7);
  if (IPV4.test(v)) return v;
  if (v.includes(':') && IPV6.test(v)) return v.toLowerCase();
  return undefined;
}

async function parseJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text; // counts as a non-object body
  }
}

/** The service token and the client-context headers every upstream call carries (also the provider's forwarding). */
export function upstreamHeaders(
  req: Pick<UpstreamRequest, 'serviceToken' | 'authorization' | 'client'>,
): Record<string, string> {
  const headers: Record<string, string> = { 'x-svc-service-token': req.serviceToken };
  if (req.authorization) headers['authorization'] = req.authorization;
  const ip = ipLiteral(req.client.ip);
  if (ip) headers['x-svc-client-ip'] = ip;
  const ua = req.client.userAgent?.trim().slice(0, MAX_UA_LENGTH);
  if (ua) headers['x-svc-client-user-agent'] = ua;
  const geo = req.client.geo
    ?.replace(/[^\p{L}\p{M}\p{N} ,.'()-]/gu, '')
    .trim()
    .slice(0, 64);
  if (geo) headers['x-svc-client-geo'] = geo;
  const challenge = req.client.challengeToken?.trim();
  if (challenge && CHALLENGE_TOKEN.test(challenge)) headers['x-svc-challenge-token'] = challenge;
  return headers;
}

export async function callUpstream(
  fetchFn: FetchLike,
  baseUrl: string,
  req: UpstreamRequest,
): Promise<UpstreamResponse> {
  const headers = upstreamHeaders(req);
  if (req.delivery) headers['x-svc-auth-delivery-mode'] = 'external';
  if (req.idempotencyKey) headers['idempotency-key'] = req.idempotencyKey;
  let body: string | undefined;
  if (req.body !== undefined && req.method !== 'GET' && req.method !== 'HEAD') {
    body = JSON.stringify(req.body);
    headers['content-type'] = 'application/json';
  }
  const url = `${baseUrl}${req.path}${buildQuery(req.query)}`;
  try {
    const res = await fetchFn(url, {
      method: req.method,
      headers,
      body,
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
      redirect: 'manual',
    });
    const stepUp = res.headers.get('www-authenticate');
    return {
      ok: true,
      status: res.status,
      body: await parseJson(res),
      retryAfter: res.headers.get('retry-after'),
      ...(stepUp ? { wwwAuthenticate: stepUp } : {}),
    };
  } catch {
    return { ok: false, reason: 'unreachable' };
  }
}
