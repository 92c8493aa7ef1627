/**
 * The API's synchronous service-token check (src/crypto/service-token.ts)
 * against the jose `jwtVerify` reference it replaced: every token
 * of the table gets the same answer — accepted with the same `sub`, or refused
 * with the same reason — except the headers the fast path refuses on purpose
 * (`crit`/`b64`), which jose would accept.
 */
import { decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { describe, expect, it } from 'vitest';
import { toBase64Url, utf8 } from '../../../common/encoding.js';
import { createServiceTokenVerifier, type ServiceTokenResult } from '../../../src/crypto/service-token.js';

const SECRET = 'service-token-test-secret-0123456789abcdef';
const NOW = 1_800_000_000_000;
const iat = Math.floor(NOW / 1000);

/** The previous implementation, verbatim: the reference the fast path must agree with. */
async function joseReference(headerValue: string, nowMs: number): Promise<ServiceTokenResult> {
  const token = headerValue.replace(/^Bearer\s+/i, '').trim();
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (alg !== 'HS256') return { ok: false, reason: 'alg' };
  try {
    const { payload } = await jwtVerify(token, utf8(SECRET), {
      algorithms: ['HS256'],
      issuer: 'svc-adapter',
      audience: 'svc-auth-api',
      currentDate: new Date(nowMs),
      clockTolerance: 30,
      requiredClaims: ['sub', 'iat', 'exp'],
    });
    // jose checks a future iat only with maxTokenAge; svc refuses it always.
    if (payload.iat! > Math.floor(nowMs / 1000) + 30) return { ok: false, reason: 'iat_future' };
    if (typeof payload.sub !== 'string' || payload.sub === '') return { ok: false, reason: 'sub' };
    if (payload.exp! - payload.iat! > 60) return { ok: false, reason: 'lifetime' };
    return { ok: true, sub: payload.sub };
  } catch {
    return { ok: false, reason: 'invalid' };
  }
}

const b64json = (v: unknown) => toBase64Url(utf8(JSON.stringify(v)));
/** A compact HS256-style token with any header and payload, signed with `secret`. */
function raw(header: unknown, payload: unknown, secret = SECRET): string {
  const input = `${b64json(header)}.${typeof payload === 'string' ? toBase64Url(utf8(payload)) : b64json(payload)}`;
  return `${input}.${toBase64Url(hmac(sha256, utf8(secret), utf8(input)))}`;
}
const good = { iss: 'svc-adapter', aud: 'svc-auth-api', sub: 'svc-hono-adapter', iat, exp: iat + 60 };
const head = { alg: 'HS256', typ: 'JWT', kid: 'dev-main' };
const without = (k: keyof typeof good) => Object.fromEntries(Object.entries(good).filter(([key]) => key !== k));
const valid = raw(head, good);
const [h, p, s] = valid.split('.') as [string, string, string];

const TABLE: [string, string][] = [
  ['a valid token', valid],
  ['a valid token with the Bearer prefix', `Bearer ${valid}`],
  ['a valid token minted by jose', ''],
  ['an aud array containing the audience', raw(head, { ...good, aud: ['x', 'svc-auth-api'] })],
  ['exp 29 s in the past (skew)', raw(head, { ...good, iat: iat - 89, exp: iat - 29 })],
  ['exp 30 s in the past', raw(head, { ...good, iat: iat - 90, exp: iat - 30 })],
  ['nbf 30 s ahead (skew)', raw(head, { ...good, nbf: iat + 30 })],
  ['iat 30 s ahead (skew)', raw(head, { ...good, iat: iat + 30, exp: iat + 90 })],
  ['iat 31 s ahead', raw(head, { ...good, iat: iat + 31, exp: iat + 91 })],
  ['iat 1 h ahead, empty sub', raw(head, { ...good, sub: '', iat: iat + 3600, exp: iat + 3660 })],
  ['nbf 31 s ahead', raw(head, { ...good, nbf: iat + 31 })],
  ['a string nbf', raw(head, { ...good, nbf: String(iat) })],
  ['a null nbf', raw(head, { ...good, nbf: null })],
  ['a wrong secret', raw(head, good, 'another-secret-another-secret-another')],
  ['a tampered payload', `${h}.${b64json({ ...good, sub: 'x' })}.${s}`],
  ['a tampered signature', `${h}.${p}.${s.slice(0, -2)}${s.endsWith('AA') ? 'AB' : 'AA'}`],
  ['an empty signature', `${h}.${p}.`],
  ['two segments', `${h}.${p}`],
  ['four segments', `${valid}.x`],
  ['five segments', `${valid}.x.y`],
  ['alg none', raw({ alg: 'none' }, good)],
  ['alg HS512', raw({ alg: 'HS512' }, good)],
  ['alg RS256', raw({ alg: 'RS256' }, good)],
  ['no alg', raw({ typ: 'JWT' }, good)],
  ['a header that is not JSON', `${toBase64Url(utf8('nope'))}.${p}.${s}`],
  ['a header that is an array', raw(['HS256'], good)],
  ['a header that is not base64url', `${h}!.${p}.${s}`],
  ['a payload that is not JSON', raw(head, 'not json')],
  ['a payload that is an array', raw(head, [good])],
  ['a payload that is a number', raw(head, 42)],
  ['a wrong issuer', raw(head, { ...good, iss: 'someone-else' })],
  ['a wrong audience', raw(head, { ...good, aud: 'someone-else' })],
  ['an aud array without the audience', raw(head, { ...good, aud: ['x'] })],
  ['no iss', raw(head, without('iss'))],
  ['no aud', raw(head, without('aud'))],
  ['no sub', raw(head, without('sub'))],
  ['no iat', raw(head, without('iat'))],
  ['no exp', raw(head, without('exp'))],
  ['a string exp', raw(head, { ...good, exp: String(iat + 60) })],
  ['a string iat', raw(head, { ...good, iat: String(iat) })],
  ['an empty sub', raw(head, { ...good, sub: '' })],
  ['a numeric sub', raw(head, { ...good, sub: 7 })],
  ['a lifetime of 61 s', raw(head, { ...good, exp: iat + 61 })],
  ['an RS256-shaped garbage token', 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln'],
  ['an empty string', ''],
  ['garbage', 'not a token'],
];

describe('service-token verification (contract §1.5)', () => {
  const verify = createServiceTokenVerifier(SECRET);

  it.each(TABLE)('answers %s exactly as the jose reference', async (name, given) => {
    const token =
      name === 'a valid token minted by jose'
        ? await new SignJWT({})
            .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: 'dev-main' })
            .setIssuer('svc-adapter')
            .setAudience('svc-auth-api')
            .setSubject('svc-express-adapter')
            .setIssuedAt(iat)
            .setExpirationTime(iat + 60)
            .sign(utf8(SECRET))
        : given;
    expect(await verify(token, NOW)).toEqual(await joseReference(token, NOW));
  });

  it('accepts the valid cases and refuses the rest (guards the table itself)', async () => {
    expect(await verify(valid, NOW)).toEqual({ ok: true, sub: 'svc-hono-adapter' });
    expect((await verify(raw(head, { ...good, exp: iat + 61 }), NOW)).ok).toBe(false);
    expect((await verify(raw(head, good, 'x'.repeat(40)), NOW)).ok).toBe(false);
    expect(await verify(raw(head, { ...good, iat: iat + 31, exp: iat + 91 }), NOW)).toEqual({
      ok: false,
      reason: 'iat_future',
    });
  });

  it('refuses crit and b64 headers, which the adapter never sends (stricter than jose)', async () => {
    const crit = raw({ ...head, crit: ['b64'], b64: true }, good);
    expect((await joseReference(crit, NOW)).ok).toBe(true);
    expect(await verify(crit, NOW)).toEqual({ ok: false, reason: 'invalid' });
    expect(await verify(raw({ ...head, b64: true }, good), NOW)).toEqual({ ok: false, reason: 'invalid' });
  });
});

describe('the memo of verified service tokens', () => {
  it('answers as the jose reference at every time, however often the same tokens come back', async () => {
    // One verifier for the whole walk, so later answers come from its memo.
    const verify = createServiceTokenVerifier(SECRET);
    const notBefore = raw(head, { ...good, nbf: iat + 40 });
    const issuedLater = raw(head, { ...good, iat: iat + 40, exp: iat + 100 });
    const offsetsSeconds = [0, 15, -40, 29, 31, 60, 89, 90, 91, 200, 0, 15];
    for (const token of [valid, `Bearer ${valid}`, notBefore, issuedLater]) {
      for (const offset of offsetsSeconds) {
        const at = NOW + offset * 1000;
        expect(await verify(token, at), `${token.slice(-8)} at +${offset}s`).toEqual(await joseReference(token, at));
      }
    }
  });

  it('remembers exact bytes only: a token one signature character off a remembered one is refused', async () => {
    const verify = createServiceTokenVerifier(SECRET);
    expect((await verify(valid, NOW)).ok).toBe(true);
    const last = s.at(-2) === 'A' ? 'B' : 'A';
    expect(await verify(`${h}.${p}.${s.slice(0, -2)}${last}${s.at(-1)}`, NOW)).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect((await verify(valid, NOW)).ok).toBe(true);
  });

  it('does not carry a remembered token over to another secret', async () => {
    await createServiceTokenVerifier(SECRET)(valid, NOW);
    expect(await createServiceTokenVerifier('another-secret-0123456789abcdef-0123456789')(valid, NOW)).toEqual({
      ok: false,
      reason: 'invalid',
    });
  });
});
