/**
 * The upstream refresh (`POST /refresh` with the raw refresh token as bearer),
 * always through the process-wide dedup (contract §5.7), with the returned
 * envelope verified before anyone may use it. Every upstream refresh carries
 * an `Idempotency-Key`: the client's on `POST /auth/refresh`, else
 * a fresh one. An answer lost on the way back (network failure, 502, 503) may
 * follow a rotation the API committed, so it is retried once with the same
 * key, which the API answers with a fresh rotation instead of reuse.
 */
import type { AdapterCore } from './core.js';
import { forwardFailure, isObject, unreachable } from './handlers/forward.js';
import { newIdempotencyKey } from '../../common/idempotency-key.js';
import { failure, type HandlerResult, type SetCookieCommand } from './result.js';
import { accessPayload } from './session-result.js';
import type { ClientInfo, UpstreamResponse } from './upstream.js';
import { positiveSeconds, verifyUpstreamToken } from './upstream-token.js';

export type RefreshValue =
  | { kind: 'ok'; envelope: Record<string, unknown>; ttl: number; refreshTtl: number }
  /** `upstreamStatus` is the API's status (401 clears cookies), or 0 when the adapter decided. */
  | { kind: 'failed'; upstreamStatus: number; result: HandlerResult };

/** The pause before the one retry of a lost refresh answer: a restarting instance or a busy database gets a moment. */
export const REFRESH_RETRY_DELAY_MS = 200;

/**
 * Worth one retry with the same key: no answer, or a gateway/busy answer that
 * may follow a committed rotation. Never a 401.
 */
const lostAnswer = (res: UpstreamResponse) => !res.ok || res.status === 502 || res.status === 503;

async function upstreamRefresh(
  core: AdapterCore,
  refreshToken: string,
  client: ClientInfo,
  idempotencyKey: string,
): Promise<UpstreamResponse> {
  const send = () =>
    core.call({ method: 'POST', path: '/refresh', authorization: `Bearer ${refreshToken}`, client, idempotencyKey });
  const first = await send();
  if (!lostAnswer(first)) return first;
  await new Promise((resolve) => setTimeout(resolve, REFRESH_RETRY_DELAY_MS));
  return send();
}

async function callRefresh(core: AdapterCore, refreshToken: string, client: ClientInfo, idempotencyKey: string) {
  const res = await upstreamRefresh(core, refreshToken, client, idempotencyKey);
  if (!res.ok)
    return { success: false, value: { kind: 'failed', upstreamStatus: 0, result: unreachable() } as RefreshValue };
  if (res.status < 200 || res.status >= 300)
    return {
      success: false,
      value: { kind: 'failed', upstreamStatus: res.status, result: forwardFailure(res) } as RefreshValue,
    };
  const body = res.body;
  const bad = {
    success: false,
    value: { kind: 'failed', upstreamStatus: 0, result: failure(502, 'invalid_upstream_response') } as RefreshValue,
  };
  if (!isObject(body) || typeof body['refreshToken'] !== 'string') return bad;
  const check = await verifyUpstreamToken(core, body['token'], {
    typ: 'access',
    sub: body['sub'],
    sid: body['sessionId'],
  });
  if (!check.ok)
    return { success: false, value: { kind: 'failed', upstreamStatus: 0, result: check.result } as RefreshValue };
  const ttl = positiveSeconds(body['ttl']);
  const refreshTtl = positiveSeconds(body['refreshTtl']);
  if (ttl === null || refreshTtl === null) return bad;
  const { delivery: _drop, ...envelope } = body;
  return { success: true, value: { kind: 'ok', envelope, ttl, refreshTtl } as RefreshValue };
}

/**
 * Refreshes once per raw token: shared while in flight, replayed for 5 s after a success.
 * `idempotencyKey`: the client's well-formed key (`POST /auth/refresh`), else a fresh one for this attempt.
 */
export async function refreshSession(
  core: AdapterCore,
  refreshToken: string,
  client: ClientInfo,
  idempotencyKey?: string,
): Promise<RefreshValue> {
  const outcome = await core.dedup.run(refreshToken, core.now(), () =>
    callRefresh(core, refreshToken, client, idempotencyKey ?? newIdempotencyKey()),
  );
  return outcome.value;
}

/** Cookie commands of a successful refresh (contract §5.5: sets A and R). */
export function refreshCookies(core: AdapterCore, value: Extract<RefreshValue, { kind: 'ok' }>): SetCookieCommand[] {
  const { envelope } = value;
  const { names } = core.opts;
  return [
    { name: names.access, payload: accessPayload(envelope), maxAge: value.ttl },
    {
      name: names.refresh,
      payload: {
        kind: 'refresh' as const,
        sub: envelope['sub'] as string,
        refreshToken: envelope['refreshToken'] as string,
      },
      maxAge: value.refreshTtl,
    },
  ];
}

/** Every auth cookie name (A, R, E(reg), E(pre)), deduplicated. */
export const allCookieNames = (core: AdapterCore): string[] => [
  ...new Set([core.opts.names.access, core.opts.names.refresh, core.opts.names.registration, core.opts.names.preAuth]),
];
