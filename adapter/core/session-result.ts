/**
 * Session results (contract §5.4), applied when a 2xx body has `refreshToken`
 * or `mfaRequired === true`: the API's signature is verified first, TTLs are
 * checked, then cookie transport moves the tokens into cookies and strips them
 * from the body, while bearer transport returns the whole body.
 */
import type { AccessCookiePayload } from '../../common/contract.js';
import type { AdapterCore } from './core.js';
import { isObject, omit } from './handlers/forward.js';
import { failure, type HandlerResult } from './result.js';
import { positiveSeconds, verifyUpstreamToken } from './upstream-token.js';

export type Transport = 'cookie' | 'bearer';

/** Builds the access cookie payload from a session envelope or an organization-switch body. */
export function accessPayload(body: Record<string, unknown>): AccessCookiePayload {
  return {
    kind: 'access',
    sub: body['sub'] as string,
    sessionId: body['sessionId'] as string,
    token: body['token'] as string,
    roles: Array.isArray(body['roles']) ? (body['roles'] as string[]) : [],
    email: body['email'] as string,
    phone: (body['phone'] as string | null | undefined) ?? null,
    organizationId: (body['organizationId'] as string | null | undefined) ?? null,
  };
}

export const isSessionBody = (body: unknown): body is Record<string, unknown> =>
  isObject(body) && ('refreshToken' in body || body['mfaRequired'] === true);

/** Applies §5.4 to a 2xx upstream body. Other bodies pass through (minus `delivery`). */
export async function sessionResult(
  core: AdapterCore,
  status: number,
  upstreamBody: unknown,
  transport: Transport,
): Promise<HandlerResult> {
  if (!isSessionBody(upstreamBody))
    return { status, body: status === 204 ? undefined : omit(upstreamBody, 'delivery') };
  const body = omit(upstreamBody, 'delivery') as Record<string, unknown>;
  const { names } = core.opts;

  if (body['mfaRequired'] === true && !('refreshToken' in body)) {
    const check = await verifyUpstreamToken(core, body['token'], { typ: 'ephemeral', ctx: 'mfa', sub: body['sub'] });
    if (!check.ok) return check.result;
    const ttl = positiveSeconds(body['ttl']);
    if (ttl === null) return failure(502, 'invalid_upstream_response');
    if (transport === 'bearer') return { status, body };
    return {
      status,
      body: omit(body, 'token'),
      setCookies: [
        {
          name: names.preAuth,
          payload: { kind: 'ephemeral', sub: check.claims.sub!, token: body['token'] as string },
          maxAge: ttl,
        },
      ],
    };
  }

  const check = await verifyUpstreamToken(core, body['token'], {
    typ: 'access',
    sub: body['sub'],
    sid: body['sessionId'],
  });
  if (!check.ok) return check.result;
  const ttl = positiveSeconds(body['ttl']);
  const refreshTtl = positiveSeconds(body['refreshTtl']);
  if (ttl === null || refreshTtl === null || typeof body['refreshToken'] !== 'string' || !body['refreshToken'])
    return failure(502, 'invalid_upstream_response');
  if (transport === 'bearer') return { status, body };
  return {
    status,
    body: omit(body, 'token', 'refreshToken'),
    clearCookies: [names.registration, names.preAuth],
    setCookies: [
      { name: names.access, payload: accessPayload(body), maxAge: ttl },
      {
        name: names.refresh,
        payload: { kind: 'refresh', sub: body['sub'] as string, refreshToken: body['refreshToken'] as string },
        maxAge: refreshTtl,
      },
    ],
  };
}
