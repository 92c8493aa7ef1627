/**
 * The auth API as a fuzz target: a fresh in-process API per route, principals
 * for every credential kind, and one `send` that builds the generated request,
 * waits for the answer (and any background work) under a deadline, and checks
 * the properties.
 */
import type { Hono } from 'hono';
import { signEphemeralToken, type EphemeralContext } from '../../src/crypto/jwt.js';
import { signedIn } from '../helpers/admin.js';
import { makeApi, type TestApi } from '../helpers/make-app.js';
import { materialize } from './arbitraries.js';
import type { FuzzCase } from './request-arb.js';
import { brokenProperty, countDiff, fillPath, rowCounter, withDeadline } from './properties.js';

export const ALL_ROLES = ['user', 'admin', 'admin:read', 'admin:write'];

/** Every concrete route of an app, from its own route list (middleware `ALL` entries left out). */
export function routesOf(app: Hono<any>): { method: string; path: string }[] {
  const seen = new Map<string, { method: string; path: string }>();
  for (const r of app.routes)
    if (r.method !== 'ALL') seen.set(`${r.method} ${r.path}`, { method: r.method, path: r.path });
  return [...seen.values()];
}

export interface ApiTarget {
  t: TestApi;
  tokens: Record<Exclude<FuzzCase['credential'], 'none' | 'garbage'>, string>;
  remint(): Promise<void>;
  counts: () => Promise<Record<string, number>>;
  /** Row counts after the last refused case (nothing ran since), to skip one count per case. */
  last: Record<string, number> | null;
}

export async function apiTarget(env: Record<string, string> = {}): Promise<ApiTarget> {
  const t = await makeApi({ env, sender: null });
  const target = { t, counts: await rowCounter(t.client), last: null } as ApiTarget;
  target.remint = async () => {
    const admin = await signedIn(t, ALL_ROLES);
    const user = await signedIn(t, ['user']);
    const eph = (ctx: EphemeralContext) =>
      signEphemeralToken(
        t.api.deps.keys,
        { sub: user.user.id, ctx, jti: crypto.randomUUID() },
        { issuer: t.api.deps.env.issuer, nowMs: t.clock.now() },
      );
    target.last = null;
    target.tokens = {
      admin: admin.token,
      user: user.token,
      'eph-login': await eph('login'),
      'eph-registration': await eph('registration'),
      'eph-mfa': await eph('mfa'),
    };
  };
  await target.remint();
  return target;
}

const GARBAGE_TOKENS = ['eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'a.b.c', 'x'.repeat(9000), '....', 'eyJ\u00ff.e30.sig'];

export function headersFor(c: FuzzCase, bearer: string | undefined): Headers {
  const h = new Headers();
  const all: [string, string][] = [
    ...(c.contentType !== undefined ? [['content-type', c.contentType] as [string, string]] : []),
    ...(bearer ? [['authorization', `Bearer ${bearer}`] as [string, string]] : []),
    ...c.headers,
  ];
  for (const [k, v] of all) {
    try {
      h.append(k, v);
    } catch {
      // Values a client cannot send at all (fetch refuses them) are not a case.
    }
  }
  return h;
}

/** Sends one case; returns the broken property or null. */
export async function sendToApi(
  target: ApiTarget,
  method: string,
  pattern: string,
  c: FuzzCase,
  needles: string[],
): Promise<string | null> {
  const path = fillPath(pattern, c.params) + c.query;
  const bearer =
    c.credential === 'none'
      ? undefined
      : c.credential === 'garbage'
        ? GARBAGE_TOKENS[c.params.length % GARBAGE_TOKENS.length]
        : target.tokens[c.credential];
  const withBody = method !== 'GET' && method !== 'HEAD';
  const background: Promise<unknown>[] = [];
  const executionCtx = {
    waitUntil: (p: Promise<unknown>) => void background.push(p),
    passThroughOnException: () => {},
    props: {},
  };
  const before = target.last ?? (await target.counts());
  const answer = await withDeadline(`${method} ${path.slice(0, 80)}`, async (signal) => {
    const res = await target.t.api.request(
      `http://auth.test${path}`,
      {
        method,
        headers: headersFor(c, bearer),
        body: withBody ? (materialize(c.body) as BodyInit | undefined) : undefined,
        signal,
      },
      undefined,
      executionCtx,
    );
    const text = await res.text();
    await Promise.allSettled(background);
    return { status: res.status, text, contentType: res.headers.get('content-type') };
  });
  const broken = brokenProperty(answer, needles);
  if (broken) return broken;
  if (answer.status >= 400) {
    target.last = await target.counts();
    return countDiff(before, target.last);
  }
  if (method !== 'GET') await target.remint();
  else target.last = null;
  return null;
}
