/** Service tokens (contract §1.5) with every knob exposed, to probe the API's checks with broken variants. */
import { SignJWT } from 'jose';
import { utf8 } from '../../common/encoding.js';
import { TEST_SERVICE_TOKEN } from './make-app.js';

export interface ServiceTokenOptions {
  nowMs: number;
  secret?: string;
  alg?: 'HS256' | 'HS384' | 'HS512';
  ttlSeconds?: number;
  sub?: string;
  iss?: string;
  aud?: string;
}

/** The raw JWT (no `Bearer ` prefix). */
export function mintServiceToken(o: ServiceTokenOptions): Promise<string> {
  const iat = Math.floor(o.nowMs / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: o.alg ?? 'HS256', typ: 'JWT', kid: 'dev-main' })
    .setIssuer(o.iss ?? 'svc-adapter')
    .setAudience(o.aud ?? 'svc-auth-api')
    .setSubject(o.sub ?? 'svc-hono-adapter')
    .setIssuedAt(iat)
    .setExpirationTime(iat + (o.ttlSeconds ?? 60))
    .sign(utf8(o.secret ?? TEST_SERVICE_TOKEN));
}
