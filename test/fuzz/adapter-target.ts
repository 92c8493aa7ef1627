/**
 * An adapter (Hono in memory, Express over a real port) as a fuzz target: the
 * route list is the adapter's own route table, credentials are browser
 * cookies (valid admin/user cookies, ephemeral cookies, forged ones), and the
 * state check reads the row counts of the API database behind it.
 */
import { signEphemeralToken, type EphemeralContext } from '../../src/crypto/jwt.js';
import { ROUTES, TOTP_BRIDGE_ROUTES } from '../../common/route-table.js';
import { makeHarness, signedInBrowser, type Harness, type Mount } from '../adapter/helpers.js';
import { createUser } from '../helpers/factories.js';
import { MAX_BODY_BYTES } from '../../adapter/core/wire.js';
import { ALL_ROLES, headersFor } from './api-target.js';
import { materialize } from './arbitraries.js';
import type { FuzzCase } from './request-arb.js';
import { brokenProperty, countDiff, fillPath, rowCounter, withDeadline } from './properties.js';

/** Every adapter route as mounted by the test harness (`/auth`, `/auth/totp`). */
export const adapterRoutes = (): {
  method: string;
  path: string;
  raw: string;
  compat?: { upstreamMethod: string };
}[] => [
  ...ROUTES.map((r) => ({
    method: r.method,
    path: `/auth${r.path}`,
    raw: r.raw,
    ...(r.compat ? { compat: r.compat } : {}),
  })),
  ...TOTP_BRIDGE_ROUTES.map((r) => ({ method: r.method, path: `/auth/totp${r.path}`, raw: r.raw })),
];

/** Calls any route may make besides its own: the cookie refresh, getUser and the JWKS. */
const AUXILIARY = new Set(['POST /refresh', 'GET /users/me', 'GET /.well-known/jwks.json']);

/**
 * Encoded separators in a parameter must not move the upstream call to another
 * route: every call the adapter makes is the route's own raw path (one segment
 * per parameter) or an auxiliary call.
 */
export function strayUpstream(h: Harness, from: number, method: string, raw: string): string | null {
  const re = new RegExp(`^${raw.replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`);
  for (const call of h.upstream.slice(from)) {
    const pathname = call.path.split('?')[0]!;
    if (AUXILIARY.has(`${call.method} ${pathname}`)) continue;
    if (call.method !== method || !re.test(pathname))
      return `upstream call left the route: ${call.method} ${call.path.slice(0, 200)} (route ${method} ${raw})`;
  }
  return null;
}

export interface AdapterTarget {
  h: Harness;
  cookies: Record<Exclude<FuzzCase['credential'], 'none'>, Record<string, string>>;
  remint(): Promise<void>;
  counts: () => Promise<Record<string, number>>;
  last: Record<string, number> | null;
  /** Oversize uploads the server cut off with a connection reset (counted, not failed). */
  resets: number;
}

const FORGED = 'eyJhbGciOiJIUzI1NiJ9.eyJraW5kIjoiYWNjZXNzIn0.AAAA';

export async function adapterTarget(mount: Mount): Promise<AdapterTarget> {
  const h = await makeHarness({}, {}, { mount, sender: null });
  const target = { h, counts: await rowCounter(h.t.client), last: null, resets: 0 } as AdapterTarget;
  target.remint = async () => {
    const admin = await signedInBrowser(h, { roles: ALL_ROLES });
    const user = await signedInBrowser(h);
    const subject = await createUser(h.t);
    const eph = async (ctx: EphemeralContext) => {
      const token = await signEphemeralToken(
        h.t.api.deps.keys,
        { sub: subject.id, ctx, jti: crypto.randomUUID() },
        { issuer: h.t.api.deps.env.issuer, nowMs: h.t.clock.now() },
      );
      return { 'svc-ephemeral': h.cookie({ kind: 'ephemeral', sub: subject.id, token }, 300) };
    };
    target.cookies = {
      garbage: { 'svc-access': FORGED, 'svc-refresh': 'x', 'svc-ephemeral': '%00' },
      admin: admin.cookies,
      user: user.cookies,
      'eph-login': await eph('login'),
      'eph-registration': await eph('registration'),
      'eph-mfa': await eph('mfa'),
    };
    target.last = null;
  };
  await target.remint();
  return target;
}

/** Sends one case through the adapter; returns the broken property or null. */
export async function sendToAdapter(
  target: AdapterTarget,
  method: string,
  pattern: string,
  c: FuzzCase,
  needles: string[],
  raw?: string,
  upstreamMethod = method,
): Promise<string | null> {
  const upstreamFrom = target.h.upstream.length;
  const path = fillPath(pattern, c.params) + c.query;
  const headers = headersFor(c, undefined);
  headers.set('user-agent', 'fuzz');
  if (c.credential !== 'none') {
    const jar = Object.entries(target.cookies[c.credential])
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
    headers.append('cookie', jar);
  }
  const withBody = method !== 'GET' && method !== 'HEAD';
  const before = target.last ?? (await target.counts());
  const body = withBody ? materialize(c.body) : undefined;
  const answer = await withDeadline(`${method} ${path.slice(0, 80)}`, async (signal) => {
    let res: Response;
    try {
      res = await target.h.driver.request(path, { method, headers, body: body as BodyInit | undefined, signal });
    } catch (err) {
      // Over a socket, a server that answers 413/401 before an oversize upload ends may close the
      // connection while the client is still writing; the client then sees a reset, not the answer.
      const code = (err as { cause?: { code?: string } }).cause?.code ?? '';
      if ((body?.length ?? 0) > MAX_BODY_BYTES && /ECONNRESET|EPIPE|UND_ERR_SOCKET/.test(code)) {
        target.resets++;
        return { status: 413, text: '{"error":"payload_too_large"}', contentType: 'application/json', setCookies: [] };
      }
      throw new Error(`${(err as Error).message} (${code || String((err as { cause?: unknown }).cause)})`);
    }
    const text = await res.text();
    return {
      status: res.status,
      text,
      contentType: res.headers.get('content-type'),
      setCookies: res.headers.getSetCookie(),
    };
  });
  const broken =
    brokenProperty(answer, needles) ?? (raw ? strayUpstream(target.h, upstreamFrom, upstreamMethod, raw) : null);
  if (broken) return broken;
  if (answer.status >= 400) {
    const after = await target.counts();
    // The adapter refreshes an unusable access cookie before the route runs (contract §5.5):
    // a rotation handed to the browser in Set-Cookie is the one write a refused request may cause.
    if (answer.setCookies.some((sc) => /^svc-refresh=[^;]/.test(sc))) {
      const diff = countDiff({ ...before, sessions: 0 }, { ...after, sessions: 0 });
      await target.remint();
      return diff;
    }
    target.last = after;
    return countDiff(before, after);
  }
  if (method !== 'GET') await target.remint();
  else target.last = null;
  return null;
}
