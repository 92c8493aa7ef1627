import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { SignJWT, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  claimsAcceptable,
  createCookieCodec,
  parseCookieHeader,
  readCookie,
  serializeClearCookie,
  serializeCookie,
} from '../../../adapter/core/cookies.js';
import type { CookieKind } from '../../../common/contract.js';
import { signHs256 } from '../../../adapter/core/hs256.js';

const SECRET = 'cookie-secret-for-the-bad-token-table-0123456789';
const ISS = 'https://app.example';
const key = new TextEncoder().encode(SECRET);
const NOW = Date.UTC(2026, 0, 31, 12, 0, 0);
const now = Math.floor(NOW / 1000);
const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const access = {
  kind: 'access',
  sub: 'u1',
  sessionId: 's1',
  token: 'a.b.c',
  roles: ['user'],
  email: 'a@b.co',
  phone: null,
  organizationId: null,
};

/** The reference (slow) path: jose's async HS256 verify plus the same claim rules. */
async function slowVerify(token: string, kind: CookieKind, issuer = ISS): Promise<boolean> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer,
      clockTolerance: 30,
      currentDate: new Date(NOW),
      requiredClaims: ['exp'],
    });
    return claimsAcceptable(payload as Record<string, unknown>, kind, issuer, NOW);
  } catch {
    return false;
  }
}

async function badTokens(): Promise<Record<string, string>> {
  const good = signHs256(key, { ...access, iss: ISS, iat: now, exp: now + 900 });
  const [h, p, s] = good.split('.') as [string, string, string];
  const flip = (x: string) => x.slice(0, -1) + (x.endsWith('A') ? 'B' : 'A');
  return {
    tamperedSignature: `${h}.${p}.${flip(s)}`,
    tamperedPayload: `${h}.${b64({ ...access, roles: ['admin'], iss: ISS, iat: now, exp: now + 900 })}.${s}`,
    wrongKey: signHs256(new TextEncoder().encode('another-secret-another-secret-another'), {
      ...access,
      iss: ISS,
      iat: now,
      exp: now + 900,
    }),
    algNone: `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`,
    algNoneWithSig: `${b64({ alg: 'none', typ: 'JWT' })}.${p}.${s}`,
    algHS512: await new SignJWT({ ...access })
      .setProtectedHeader({ alg: 'HS512' })
      .setIssuer(ISS)
      .setIssuedAt(now)
      .setExpirationTime(now + 900)
      .sign(new Uint8Array(64).fill(1)),
    critHeader: signHs256(key, { ...access, iss: ISS, iat: now, exp: now + 900 }, { crit: ['x'], x: 1 }),
    wrongIssuer: signHs256(key, { ...access, iss: 'https://evil.example', iat: now, exp: now + 900 }),
    noIssuer: signHs256(key, { ...access, iat: now, exp: now + 900 }),
    expired: signHs256(key, { ...access, iss: ISS, iat: now - 1000, exp: now - 31 }),
    noExp: signHs256(key, { ...access, iss: ISS, iat: now }),
    stringExp: signHs256(key, { ...access, iss: ISS, iat: now, exp: String(now + 900) }),
    notYetValid: signHs256(key, { ...access, iss: ISS, iat: now, nbf: now + 100, exp: now + 900 }),
    wrongKind: signHs256(key, { ...access, kind: 'refresh', iss: ISS, iat: now, exp: now + 900 }),
    noKind: signHs256(key, { ...access, kind: undefined, iss: ISS, iat: now, exp: now + 900 }),
    garbage: 'not-a-jwt',
    twoParts: `${h}.${p}`,
    fourParts: `${good}.x`,
    badBase64: `${h}.${p}.!!!`,
    arrayPayload: (() => {
      const input = `${h}.${b64([1, 2])}`;
      const sig = btoa(String.fromCharCode(...hmac(sha256, key, new TextEncoder().encode(input))))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '');
      return `${input}.${sig}`;
    })(),
    empty: '',
  };
}

describe('cookie codec', () => {
  it('round-trips a payload with iss, iat and exp = iat + maxAge', () => {
    const codec = createCookieCodec(SECRET, ISS);
    const value = codec.sign(access as never, 900, NOW);
    const claims = codec.verify(value, 'access', NOW)!;
    expect(claims).toMatchObject({ ...access, iss: ISS, iat: now, exp: now + 900 });
  });

  it('the fast path rejects every token of the bad-token table, and so does the jose reference path', async () => {
    const codec = createCookieCodec(SECRET, ISS);
    const table = await badTokens();
    for (const [name, token] of Object.entries(table)) {
      expect(codec.verify(token, 'access', NOW), `fast: ${name}`).toBeNull();
      expect(await slowVerify(token, 'access'), `slow: ${name}`).toBe(false);
    }
    // and both accept the good token
    const good = codec.sign(access as never, 900, NOW);
    expect(codec.verify(good, 'access', NOW)).not.toBeNull();
    expect(await slowVerify(good, 'access')).toBe(true);
  });

  it('the cache still enforces exp and kind on a repeat', () => {
    const codec = createCookieCodec(SECRET, ISS);
    const value = codec.sign(access as never, 60, NOW);
    expect(codec.verify(value, 'access', NOW)).not.toBeNull();
    expect(codec.verify(value, 'refresh', NOW)).toBeNull();
    expect(codec.verify(value, 'access', NOW + 89_000)).not.toBeNull(); // 30 s skew
    expect(codec.verify(value, 'access', NOW + 91_000)).toBeNull();
  });

  it('a cookie signed for another issuer never verifies, even after the same string was cached by another codec', () => {
    const a = createCookieCodec(SECRET, ISS);
    const b = createCookieCodec(SECRET, 'https://other.example');
    const value = b.sign(access as never, 900, NOW);
    expect(b.verify(value, 'access', NOW)).not.toBeNull();
    expect(a.verify(value, 'access', NOW)).toBeNull();
  });

  it('the cache hits only the exact bytes that verified: a payload under a remembered signature is refused', () => {
    const codec = createCookieCodec(SECRET, ISS);
    const good = signHs256(key, { ...access, iss: ISS, iat: now, exp: now + 900 });
    const [h, , sig] = good.split('.') as [string, string, string];
    expect(codec.verify(good, 'access', NOW)).not.toBeNull(); // now remembered under its signature
    const forged = `${h}.${b64({ ...access, roles: ['admin'], iss: ISS, iat: now, exp: now + 900 })}.${sig}`;
    expect(codec.verify(forged, 'access', NOW)).toBeNull();
    // the same bytes in another string
    expect(codec.verify(` ${good}`.slice(1), 'access', NOW)?.roles).toEqual(['user']);
  });

  it('without an issuer option the iss check is skipped (requireAuth without issuer)', () => {
    const value = createCookieCodec(SECRET, 'https://any.example').sign(access as never, 900, NOW);
    expect(createCookieCodec(SECRET, undefined).verify(value, 'access', NOW)).not.toBeNull();
  });
});

describe('cookie serialization', () => {
  it('writes the exact attributes on set and on clear', () => {
    const dev = { secure: false, sameSite: 'lax' as const, domain: undefined };
    const prod = { secure: true, sameSite: 'none' as const, domain: 'example.com' };
    expect(serializeCookie('svc-access', 'v', 900, dev, NOW)).toBe(
      'svc-access=v; Max-Age=900; Path=/; Expires=Sat, 31 Jan 2026 12:15:00 GMT; HttpOnly; SameSite=Lax',
    );
    expect(serializeCookie('svc-refresh', 'v', 60, prod, NOW)).toBe(
      'svc-refresh=v; Max-Age=60; Domain=example.com; Path=/; Expires=Sat, 31 Jan 2026 12:01:00 GMT; HttpOnly; Secure; SameSite=None',
    );
    expect(serializeClearCookie('svc-ephemeral', { ...dev, sameSite: 'strict' })).toBe(
      'svc-ephemeral=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict',
    );
  });

  it('parses a Cookie header; the first occurrence wins and __proto__ is harmless', () => {
    const parsed = parseCookieHeader('a=1; b="2"; a=3; __proto__=x; =y; c');
    expect(parsed['a']).toBe('1');
    expect(parsed['b']).toBe('2');
    expect(parsed['__proto__']).toBe('x');
    expect(Object.keys(parsed)).toEqual(['a', 'b', '__proto__']);
  });

  it('readCookie answers as parseCookieHeader for every name, on headers built from awkward pieces', () => {
    const pieces = [
      'a=1',
      ' a=2',
      'b="q"',
      'b=3',
      '=x',
      'c',
      ' svc-access = v.w.x ',
      'svc-access=second',
      '"d"=4',
      'e==5',
      'f=""',
      'g="',
      '',
      ' ',
      '__proto__=p',
      'h=a=b',
    ];
    const names = ['a', 'b', 'c', 'd', '"d"', 'e', 'f', 'g', 'h', 'svc-access', '__proto__', 'missing'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 400; i++) {
      const header = Array.from({ length: 1 + (next() % 6) }, () => pieces[next() % pieces.length]).join(
        next() % 2 ? ';' : '; ',
      );
      const parsed = parseCookieHeader(header);
      for (const name of names)
        expect(readCookie(header, name), `${JSON.stringify(header)} ${name}`).toBe(parsed[name]);
    }
    expect(readCookie(undefined, 'a')).toBeUndefined();
    expect(readCookie('x=1; svc-access="a.b.c"', 'svc-access')).toBe('a.b.c');
  });
});
