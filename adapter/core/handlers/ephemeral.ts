/**
 * Pre-auth starts (contract §5.3): `/login` and `/registration/register` set
 * the ephemeral cookie after verifying the API's token; the OTP generate
 * routes re-set it with the re-minted token.
 */
import type { AdapterCore } from '../core.js';
import type { HandlerResult } from '../result.js';
import { failure } from '../result.js';
import type { Transport } from '../session-result.js';
import type { UpstreamResponse } from '../upstream.js';
import { positiveSeconds, verifyUpstreamToken } from '../upstream-token.js';
import { collectDeliveries } from './delivery.js';
import { is2xx, isObject, omit, passthrough } from './forward.js';

/** `POST /login` (ctx login) and `POST /registration/register` (ctx registration). */
export async function ephemeralStart(
  core: AdapterCore,
  res: UpstreamResponse,
  transport: Transport,
  ctx: 'login' | 'registration',
): Promise<HandlerResult> {
  if (!is2xx(res) || !isObject(res.body)) return passthrough(res);
  const body = res.body;
  const check = await verifyUpstreamToken(core, body['token'], { typ: 'ephemeral', ctx, sub: body['sub'] });
  if (!check.ok) return check.result;
  const ttl = positiveSeconds(body['ttl']);
  if (ttl === null) return failure(502, 'invalid_upstream_response');
  // Only registration is a delivery route (§5.3 Svc `D`); `/login` never carries `delivery`, so
  // looking for one there would log the serviceSecret-mismatch warning on every sign-in.
  const deliveries = ctx === 'registration' ? collectDeliveries(core, body) : [];
  if (transport === 'bearer') return { status: res.status, body: omit(body, 'delivery'), deliveries };
  const name = ctx === 'login' ? core.opts.names.preAuth : core.opts.names.registration;
  const browserBody =
    ctx === 'login'
      ? { message: body['message'], identifierType: body['identifierType'], loginMethods: body['loginMethods'] }
      : omit(body, 'token', 'delivery');
  return {
    status: res.status,
    body: browserBody,
    setCookies: [
      { name, payload: { kind: 'ephemeral', sub: body['sub'] as string, token: body['token'] as string }, maxAge: ttl },
    ],
    deliveries,
  };
}

/** OTP generate: the re-minted token replaces the route's ephemeral cookie. */
export async function ephemeralRenew(
  core: AdapterCore,
  res: UpstreamResponse,
  transport: Transport,
  cred: 'pre' | 'reg',
  currentSub: string | null,
): Promise<HandlerResult> {
  if (!is2xx(res) || !isObject(res.body)) return passthrough(res);
  const body = res.body;
  const deliveries = collectDeliveries(core, body);
  if (transport === 'bearer') return { status: res.status, body: omit(body, 'delivery'), deliveries };
  const check = await verifyUpstreamToken(core, body['token'], {
    typ: 'ephemeral',
    ctx: cred === 'pre' ? 'login' : 'registration',
    sub: currentSub,
  });
  if (!check.ok) return check.result;
  const ttl = positiveSeconds(body['ttl']);
  if (ttl === null) return failure(502, 'invalid_upstream_response');
  const name = cred === 'pre' ? core.opts.names.preAuth : core.opts.names.registration;
  return {
    status: res.status,
    body: omit(body, 'token', 'delivery'),
    setCookies: [
      { name, payload: { kind: 'ephemeral', sub: check.claims.sub!, token: body['token'] as string }, maxAge: ttl },
    ],
    deliveries,
  };
}
