/**
 * The JWT/cookie attack matrix: one table of attacks run
 * against the API's bearer check (`GET /users/me`), the adapter's bearer check
 * (JWKS, `requireAuth` on `/app`) and the adapter's cookie check (`/app` and
 * `/auth/refresh`). Shared by the test (every row asserted) and
 * `npm run attack-matrix` (every row printed).
 */
import { decodeJwt } from 'jose';
import { signEphemeralToken, type EphemeralContext } from '../../src/crypto/jwt.js';
import { signHs256 } from '../../adapter/core/hs256.js';
import { createCookieCodec } from '../../adapter/core/cookies.js';
import { REFRESH_REPLAY_MS } from '../../adapter/core/refresh.js';
import { APP_ORIGIN, COOKIE_SECRET, makeHarness, signedInBrowser, type Harness } from '../adapter/helpers.js';
import { TEST_ISSUER, TEST_SERVICE_TOKEN } from '../helpers/make-app.js';
import { alter, forge, rawJwt, swapPayload } from './tokens.js';

export type Target = 'api bearer' | 'adapter bearer (JWKS)' | 'adapter cookie';

export interface Outcome {
  status: number;
  error: string | undefined;
}

export interface Row {
  target: Target;
  attack: string;
  expected: Outcome;
  /** Set when the row documents an open defect another change is fixing (the test skips it). */
  knownDefect?: string;
  run: () => Promise<Outcome>;
}

export interface RowResult extends Omit<Row, 'run'> {
  observed: Outcome;
  pass: boolean;
}

const UNAUTHORIZED: Outcome = { status: 401, error: 'unauthorized' };
const OK: Outcome = { status: 200, error: undefined };
const outcome = (r: { status: number; body: any }): Outcome => ({
  status: r.status,
  error: r.status >= 400 ? r.body?.error : undefined,
});

export async function buildMatrix(): Promise<{ rows: Row[]; h: Harness }> {
  const h = await makeHarness();
  const { env, cookies, user } = await signedInBrowser(h);
  const other = await signedInBrowser(h);
  const claims = decodeJwt(env.token);
  const { kid } = JSON.parse(Buffer.from(env.token.split('.')[0]!, 'base64url').toString()) as { kid: string };
  const f = await forge(kid);
  const now = Math.floor(h.t.clock.now() / 1000);
  const deps = h.t.api.deps;
  const eph = (ctx: EphemeralContext) =>
    signEphemeralToken(
      deps.keys,
      { sub: user.id, ctx, jti: crypto.randomUUID() },
      { issuer: deps.env.issuer, nowMs: h.t.clock.now() },
    );
  const ephLogin = await eph('login');
  const ephRegistration = await eph('registration');
  const ephMfa = await eph('mfa');

  /** Token attacks: each is refused by both bearer checks. */
  const tokens: [string, () => Promise<string> | string, string?][] = [
    ['alg none, empty signature', () => rawJwt({ alg: 'none', typ: 'JWT', kid }, claims)],
    [
      'alg "None", original signature',
      () => `${rawJwt({ alg: 'None', typ: 'JWT', kid }, claims).slice(0, -1)}.${env.token.split('.')[2]}`,
    ],
    ['alg confusion: HS256 keyed with the RSA public key', () => f.hsWithPublicKey(claims)],
    ['unknown kid', () => f.rs256(claims, { kid: 'no-such-key' })],
    ['kid injection: path traversal', () => f.rs256(claims, { kid: '../../../../dev/null' })],
    ['kid injection: SQL', () => f.rs256(claims, { kid: `${kid}' OR '1'='1` })],
    ['jwk header: attacker key embedded', () => f.attacker(claims, { jwk: f.attackerJwk })],
    ['jku header: attacker JWKS URL', () => f.attacker(claims, { jku: 'http://evil.example/jwks.json' })],
    ['x5u header: attacker certificate URL', () => f.attacker(claims, { x5u: 'http://evil.example/cert.pem' })],
    ['crit header: unknown critical extension', () => f.rs256Raw({ crit: ['x-evil'], 'x-evil': true }, claims)],
    ['expired (exp 1 h ago)', () => f.rs256({ ...claims, iat: now - 7200, exp: now - 3600 })],
    ['nbf 1 h in the future', () => f.rs256({ ...claims, nbf: now + 3600 })],
    ['iat 1 h in the future', () => f.rs256({ ...claims, iat: now + 3600, exp: now + 7200 })],
    ['wrong iss', () => f.rs256({ ...claims, iss: 'http://evil.example' })],
    ['wrong aud', () => f.rs256({ ...claims, aud: 'http://evil.example' })],
    ['aud array [audience, other]', () => f.rs256({ ...claims, aud: [TEST_ISSUER, 'http://evil.example'] })],
    ['no exp', () => f.rs256({ ...claims, exp: undefined })],
    ['no iat', () => f.rs256({ ...claims, iat: undefined })],
    ['signature stripped', () => `${env.token.split('.').slice(0, 2).join('.')}.`],
    ['signature altered', () => alter(env.token, 2)],
    [
      'payload tampered (roles admin), original signature',
      () => swapPayload(env.token, { ...claims, roles: ['admin', 'admin:write'] }),
    ],
    [
      'payload tampered (other sub), original signature',
      () => swapPayload(env.token, { ...claims, sub: other.user.id }),
    ],
    ['typ swap: ephemeral login as access', () => ephLogin],
    ['typ swap: ephemeral registration as access', () => ephRegistration],
    ['typ swap: ephemeral mfa (pre-auth) as access', () => ephMfa],
    ['typ swap: typ "refresh" JWT as access', () => f.rs256({ ...claims, typ: 'refresh' })],
    ['typ swap: typ "service" JWT as access', () => f.rs256({ ...claims, typ: 'service' })],
    ['typ swap: typ "pre-auth" JWT as access', () => f.rs256({ ...claims, typ: 'pre-auth' })],
    ['typ swap: no typ', () => f.rs256({ ...claims, typ: undefined })],
    ['typ swap: opaque refresh token as access', () => env.refreshToken],
    ['typ swap: service token as access', () => TEST_SERVICE_TOKEN],
    ['truncated token', () => env.token.slice(0, Math.floor(env.token.length / 2))],
    ['oversize token (100 KB)', () => `${env.token.split('.')[0]}.${'A'.repeat(100_000)}.${env.token.split('.')[2]}`],
  ];

  const rows: Row[] = [];
  rows.push({
    target: 'api bearer',
    attack: 'control: the valid access token',
    expected: OK,
    run: async () => outcome(await h.t.call('GET', '/users/me', { token: env.token })),
  });
  rows.push({
    target: 'adapter bearer (JWKS)',
    attack: 'control: the valid access token',
    expected: OK,
    run: async () => outcome(await h.send('GET', '/app', { headers: { authorization: `Bearer ${env.token}` } })),
  });
  for (const [attack, make, knownDefect] of tokens) {
    rows.push({
      target: 'api bearer',
      attack,
      expected: UNAUTHORIZED,
      knownDefect,
      run: async () => outcome(await h.t.call('GET', '/users/me', { token: await make() })),
    });
    rows.push({
      target: 'adapter bearer (JWKS)',
      attack,
      expected: UNAUTHORIZED,
      knownDefect,
      run: async () => outcome(await h.send('GET', '/app', { headers: { authorization: `Bearer ${await make()}` } })),
    });
  }

  // And back: each credential kind where another kind is required (contract §0.3).
  const apiRow = (attack: string, method: string, path: string, token: () => string, expected: Outcome) =>
    rows.push({
      target: 'api bearer',
      attack,
      expected,
      run: async () => outcome(await h.t.call(method, path, { token: token(), body: {} })),
    });
  apiRow('typ swap: access token as refresh (POST /refresh)', 'POST', '/refresh', () => env.token, {
    status: 401,
    error: 'invalid_refresh_token',
  });
  apiRow('typ swap: ephemeral login as refresh (POST /refresh)', 'POST', '/refresh', () => ephLogin, {
    status: 401,
    error: 'invalid_refresh_token',
  });
  apiRow(
    'typ swap: access token as ephemeral login (POST /magic-link/check)',
    'POST',
    '/magic-link/check',
    () => env.token,
    UNAUTHORIZED,
  );
  apiRow(
    'typ swap: ephemeral registration as login (POST /magic-link/check)',
    'POST',
    '/magic-link/check',
    () => ephRegistration,
    UNAUTHORIZED,
  );
  apiRow(
    'typ swap: ephemeral mfa as login (POST /magic-link/check)',
    'POST',
    '/magic-link/check',
    () => ephMfa,
    UNAUTHORIZED,
  );
  apiRow(
    'typ swap: ephemeral login as mfa (POST /totp/verify-login)',
    'POST',
    '/totp/verify-login',
    () => ephLogin,
    UNAUTHORIZED,
  );
  apiRow(
    'typ swap: access token as mfa (POST /totp/verify-login)',
    'POST',
    '/totp/verify-login',
    () => env.token,
    UNAUTHORIZED,
  );
  apiRow(
    'typ swap: refresh token as ephemeral (POST /magic-link/check)',
    'POST',
    '/magic-link/check',
    () => env.refreshToken,
    UNAUTHORIZED,
  );

  // Cookies (contract §5.4): HS256 with the cookie secret, iss = the app origin, a `kind` claim.
  const access = cookies['svc-access']!;
  const accessClaims = decodeJwt(access);
  const foreign = createCookieCodec('another-cookie-secret-0123456789-abcdefghij', APP_ORIGIN);
  const otherIssuer = createCookieCodec(COOKIE_SECRET, 'http://other-app.example');
  const key = new TextEncoder().encode(COOKIE_SECRET);
  const cookieAttacks: [string, () => Record<string, string>][] = [
    ['bad signature (one character changed)', () => ({ 'svc-access': alter(access, 2) })],
    [
      'payload tampered (roles admin), original signature',
      () => ({ 'svc-access': swapPayload(access, { ...accessClaims, roles: ['admin'] }) }),
    ],
    ['alg none', () => ({ 'svc-access': rawJwt({ alg: 'none', typ: 'JWT' }, accessClaims) })],
    [
      'signed with another cookie secret',
      () => ({ 'svc-access': foreign.sign(accessClaims as never, 900, h.t.clock.now()) }),
    ],
    [
      'from another issuer (same secret, other iss)',
      () => ({ 'svc-access': otherIssuer.sign(accessClaims as never, 900, h.t.clock.now()) }),
    ],
    ['no iss', () => ({ 'svc-access': signHs256(key, { ...accessClaims, iss: undefined }) })],
    [
      'expired (exp 1 h ago)',
      () => ({ 'svc-access': signHs256(key, { ...accessClaims, iat: now - 7200, exp: now - 3600 }) }),
    ],
    ['nbf 1 h in the future', () => ({ 'svc-access': signHs256(key, { ...accessClaims, nbf: now + 3600 }) })],
    ['crit header', () => ({ 'svc-access': signHs256(key, accessClaims, { crit: ['exp'] }) })],
    ['swapped names: refresh cookie as access', () => ({ 'svc-access': cookies['svc-refresh']! })],
    [
      'kind swap: ephemeral cookie as access',
      () => ({ 'svc-access': h.cookie({ kind: 'ephemeral', sub: user.id, token: ephLogin }, 300) }),
    ],
    ['truncated cookie', () => ({ 'svc-access': access.slice(0, Math.floor(access.length / 2)) })],
    [
      'oversize cookie (8 KB)',
      () => ({ 'svc-access': `${access.split('.')[0]}.${'A'.repeat(8_000)}.${access.split('.')[2]}` }),
    ],
  ];
  rows.push({
    target: 'adapter cookie',
    attack: 'control: the valid access cookie',
    expected: OK,
    run: async () => outcome(await h.send('GET', '/app', { cookies: { 'svc-access': access } })),
  });
  rows.push({
    target: 'adapter cookie',
    attack: 'control: the valid access cookie (GET /auth/users/me)',
    expected: OK,
    run: async () => outcome(await h.send('GET', '/auth/users/me', { cookies: { 'svc-access': access } })),
  });
  for (const [attack, jar] of cookieAttacks) {
    rows.push({
      target: 'adapter cookie',
      attack,
      expected: UNAUTHORIZED,
      run: async () => outcome(await h.send('GET', '/app', { cookies: jar() })),
    });
    // The adapter's own routes read the same cookie (and would refresh from a refresh cookie, absent here).
    rows.push({
      target: 'adapter cookie',
      attack: `${attack} (GET /auth/users/me)`,
      expected: UNAUTHORIZED,
      run: async () => outcome(await h.send('GET', '/auth/users/me', { cookies: jar() })),
    });
  }

  // Refresh cookie: swapped names and the old cookie after a rotation.
  const refreshRow = (attack: string, expected: Outcome, jar: () => Promise<Record<string, string>>) =>
    rows.push({
      target: 'adapter cookie',
      attack,
      expected,
      run: async () =>
        outcome(await h.send('POST', '/auth/refresh', { cookies: await jar(), headers: { origin: APP_ORIGIN } })),
    });
  refreshRow('swapped names: access cookie as refresh (POST /auth/refresh)', UNAUTHORIZED, async () => ({
    'svc-refresh': access,
  }));
  refreshRow('refresh cookie signed with another secret (POST /auth/refresh)', UNAUTHORIZED, async () => ({
    'svc-refresh': foreign.sign(
      { kind: 'refresh', sub: user.id, refreshToken: env.refreshToken },
      900,
      h.t.clock.now(),
    ),
  }));
  const rotated = async (waitMs: number) => {
    const fresh = await signedInBrowser(h);
    const first = await h.send('POST', '/auth/refresh', { cookies: fresh.cookies, headers: { origin: APP_ORIGIN } });
    if (first.status !== 200) throw new Error(`rotation failed: ${first.status}`);
    h.t.clock.advance(waitMs);
    return { 'svc-refresh': fresh.cookies['svc-refresh']! };
  };
  // Contract §5.7: the adapter replays a refresh success younger than 5 s (parallel tabs), so the
  // old cookie only counts as reuse once that window has passed. These two rows run last (clock moves).
  refreshRow('old refresh cookie 1 s after rotation (POST /auth/refresh; §5.7 replay)', OK, () => rotated(1_000));
  refreshRow(
    'old refresh cookie 6 s after rotation (POST /auth/refresh)',
    { status: 401, error: 'refresh_token_reused' },
    () => rotated(REFRESH_REPLAY_MS + 1_000),
  );

  return { rows, h };
}

export async function runMatrix(): Promise<RowResult[]> {
  const { rows } = await buildMatrix();
  const out: RowResult[] = [];
  for (const { run, ...row } of rows) {
    const observed = await run();
    out.push({
      ...row,
      observed,
      pass: observed.status === row.expected.status && observed.error === row.expected.error,
    });
  }
  return out;
}

export function formatRow(r: RowResult): string {
  const o = (x: Outcome) => `${x.status}${x.error ? ` ${x.error}` : ''}`;
  const verdict = r.pass ? 'PASS' : r.knownDefect ? 'KNOWN' : 'FAIL';
  return `${verdict.padEnd(5)} ${r.target.padEnd(22)} ${r.attack.padEnd(68)} expected ${o(r.expected).padEnd(30)} observed ${o(r.observed)}`;
}
