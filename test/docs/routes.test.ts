/**
 * Every route a doc names exists: each `METHOD /path` written in README.md or
 * docs/*.md must be a route of the API app (as Hono registered it), of the
 * adapter's route table under its `/auth` mount (plus the TOTP bridge and the
 * well-known routes), or a page of the admin console or the demo. A doc that
 * tells an operator to call a route that is not there (say
 * `PATCH /internal/system-config` for `PATCH /system-config/admin`) fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_SERVER_ROUTES, ROUTES } from '../../common/route-table.js';
import { createDemoApp } from '../../demo/app.js';
import { ROOT } from '../helpers/env-names.js';
import { makeApi, TEST_ISSUER, TEST_SERVICE_TOKEN } from '../helpers/make-app.js';

/**
 * Routes the docs name on purpose although no table has them: each says the
 * route is absent or refused, or belongs to the benchmark apps (bench/).
 */
const NAMED_AS_ABSENT: Record<string, string[]> = {
  // examples of a wrong method answering 405
  'docs/adapters.md': ['GET /auth/login', 'PUT /auth/refresh', 'POST /auth/totp/status'],
  'docs/contract-changes.md': [
    'GET /auth/login',
    'PUT /auth/refresh',
    // removed: answers 405
    'POST /organizations/:organizationId/members',
    // not mounted on purpose
    'GET /auth/logout',
  ],
  'docs/contract.md': ['POST /organizations/:organizationId/members', 'GET /auth/logout'],
  // the benchmark apps' own routes (bench/adapter.ts, bench/peers.ts) and Better Auth's
  'docs/performance.md': ['GET /bench/ping', 'GET /guarded', 'GET /api/auth/get-session', 'GET /bench/otp'],
  // the receiving app's own route in the example delivery, not one of ours
  'docs/webhooks.md': ['POST /svc'],
};

const METHOD = /\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (\/(?:<[^>\s]+>|[^\s`|)\]"',;<>])*)/g;

/** `METHOD /path` as written, its query and trailing punctuation dropped. */
export function namedRoutes(markdown: string): { method: string; path: string }[] {
  return [...markdown.matchAll(METHOD)].map((m) => ({
    method: m[1]!,
    path: m[2]!.split(/[?#]/)[0]!.replace(/[.:]+$/, '') || '/',
  }));
}

/** A path segment that stands for a value: `:id`, `{id}`, `<id>`, `*`, `…`. */
const isParam = (segment: string) => /^(:\w+|\{\w+\}|<[^>]+>|\*|…|\.\.\.)$/.test(segment);

/** Segment-wise match; a trailing `*` in either path matches any rest. */
export function pathMatches(written: string, known: string): boolean {
  const a = written.split('/').filter(Boolean);
  const b = known.split('/').filter(Boolean);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] === '*' || b[i] === '*') return true;
    if (a[i] === undefined || b[i] === undefined) return false;
    if (a[i] === b[i] || isParam(a[i]!) || isParam(b[i]!)) continue;
    return false;
  }
  return true;
}

export function unknownRoutes(markdown: string, known: readonly { method: string; path: string }[]): string[] {
  return namedRoutes(markdown)
    .filter((n) => !known.some((k) => k.method === n.method && pathMatches(n.path, k.path)))
    .map((n) => `${n.method} ${n.path}`);
}

const markdownFiles = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

let known: { method: string; path: string }[] = [];

const registered = (routes: readonly { method: string; path: string }[]) =>
  routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method, path: r.path }));

beforeAll(async () => {
  const t = await makeApi({ env: { OPENAPI_ENABLED: 'true' } });
  const api = registered(t.api.routes);
  await t.api.close();
  // The demo mounts the adapter at /auth, the TOTP bridge at /auth/totp, the
  // well-known routes at / and the admin console at /admin, and has its own pages.
  const { app } = createDemoApp({
    authServerUrl: TEST_ISSUER,
    serviceSecret: TEST_SERVICE_TOKEN,
    cookieSecret: 'docs-routes-test-cookie-secret-0123456789',
    printMessages: false,
  });
  // Adapter routes are also written without their mount ("the adapter's `POST /login`").
  const bare = [...ROUTES, ...OAUTH_SERVER_ROUTES].map((r) => ({ method: r.method, path: r.path }));
  known = [...api, ...registered(app.routes), ...bare];
});

describe('routes named in README.md and docs/', () => {
  it('refuses a route that does not exist (the mistake this test was written for)', () => {
    expect(unknownRoutes('use `PATCH /internal/system-config` to change it', known)).toEqual([
      'PATCH /internal/system-config',
    ]);
    expect(unknownRoutes('use `PATCH /system-config/admin` to change it', known)).toEqual([]);
    expect(unknownRoutes('`GET /auth/logout`', known)).toEqual(['GET /auth/logout']);
  });

  it.each(markdownFiles)('%s: every METHOD /path is a route', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const absent = new Set(NAMED_AS_ABSENT[file] ?? []);
    expect(unknownRoutes(text, known).filter((r) => !absent.has(r))).toEqual([]);
  });

  it('names as absent only routes that really are absent', () => {
    for (const [file, routes] of Object.entries(NAMED_AS_ABSENT))
      for (const route of routes) expect(unknownRoutes(route, known), `${file}: ${route}`).toEqual([route]);
  });
});
