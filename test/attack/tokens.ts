/** Forged and altered JWTs for the attack matrix, signed with the test key, an attacker key, or nothing. */
import { createSign } from 'node:crypto';
import { exportJWK, generateKeyPair, importPKCS8, SignJWT, type JWTPayload } from 'jose';
import { signHs256 } from '../../adapter/core/hs256.js';
import { testSigningKey } from '../helpers/keys.js';

const b64url = (s: string | Uint8Array) => Buffer.from(s).toString('base64url');

/** A JWT with any header and payload and a raw signature part (unsigned forgeries). */
export const rawJwt = (header: object, payload: object, signature = '') =>
  `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}.${signature}`;

export interface Forge {
  /** RS256 with the API's real key (valid unless the claims or header say otherwise). */
  rs256(payload: JWTPayload, header?: Record<string, unknown>): Promise<string>;
  /** RS256 with the real key over any header (jose refuses to sign some hostile headers). */
  rs256Raw(header: Record<string, unknown>, payload: object): string;
  /** RS256 with a key the attacker made. */
  attacker(payload: JWTPayload, header?: Record<string, unknown>): Promise<string>;
  attackerJwk: Record<string, unknown>;
  /** HS256 keyed with the API's public key PEM (the classic alg-confusion forgery). */
  hsWithPublicKey(payload: JWTPayload, header?: Record<string, unknown>): string;
  publicPem: string;
}

export async function forge(kid: string): Promise<Forge> {
  const { privatePem, publicPem } = await testSigningKey();
  const key = await importPKCS8(privatePem, 'RS256');
  const attackerPair = await generateKeyPair('RS256', { extractable: true });
  const attackerJwk = { ...(await exportJWK(attackerPair.publicKey)), kid, alg: 'RS256', use: 'sig' };
  const sign = (
    k: CryptoKey | Parameters<SignJWT['sign']>[0],
    payload: JWTPayload,
    header: Record<string, unknown> = {},
  ) => new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid, ...header } as never).sign(k);
  return {
    rs256: (p, h) => sign(key, p, h),
    rs256Raw: (header, payload) => {
      const input = `${b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid, ...header }))}.${b64url(JSON.stringify(payload))}`;
      return `${input}.${createSign('RSA-SHA256').update(input).sign(privatePem).toString('base64url')}`;
    },
    attacker: (p, h) => sign(attackerPair.privateKey, p, h),
    attackerJwk,
    hsWithPublicKey: (p, h) =>
      signHs256(new TextEncoder().encode(publicPem), p as Record<string, unknown>, {
        alg: 'HS256',
        typ: 'JWT',
        kid,
        ...h,
      }),
    publicPem,
  };
}

/** Flips one character of a token part (0 header, 1 payload, 2 signature). */
export function alter(token: string, part: 0 | 1 | 2): string {
  const parts = token.split('.');
  const s = parts[part]!;
  const i = Math.floor(s.length / 2);
  parts[part] = s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  return parts.join('.');
}

/** Replaces the payload and keeps the original signature. */
export function swapPayload(token: string, payload: object): string {
  const [h, , s] = token.split('.');
  return `${h}.${b64url(JSON.stringify(payload))}.${s}`;
}
