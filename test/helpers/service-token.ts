/** Service tokens as the adapter mints them (contract §1.5), for external-delivery tests. */
import { SignJWT } from 'jose';
import { TEST_SERVICE_TOKEN } from './make-app.js';

export async function serviceToken(nowMs: number, opts: { secret?: string; sub?: string } = {}): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: 'dev-main' })
    .setIssuer('svc-adapter')
    .setAudience('svc-auth-api')
    .setSubject(opts.sub ?? 'svc-external-delivery')
    .setIssuedAt(iat)
    .setExpirationTime(iat + 60)
    .sign(new TextEncoder().encode(opts.secret ?? TEST_SERVICE_TOKEN));
  return `Bearer ${jwt}`;
}

/** Headers that grant external delivery (a valid service token + the delivery-mode header). */
export async function externalDelivery(
  nowMs: number,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  return { 'x-svc-service-token': await serviceToken(nowMs), 'x-svc-auth-delivery-mode': 'external', ...extra };
}
