/**
 * Property-based fuzzing of every auth API route, in process.
 * The route list comes from the app itself, so a new route is fuzzed without
 * touching this file. Properties per case: no 5xx, an answer within the
 * deadline, the `{error, message}` envelope on every 4xx, no secret or stack
 * frame in the body, and no row added or removed by a refused request.
 * Deeply nested JSON bodies run as a second, smaller batch per non-GET route.
 * `npm run fuzz` reruns this with a random seed (FUZZ_SEED, FUZZ_RUNS).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeApi } from '../helpers/make-app.js';
import { apiTarget, routesOf, sendToApi } from './api-target.js';
import { deepBodyArb } from './arbitraries.js';
import { caseArb, describeCase, runCases, type FuzzCase } from './request-arb.js';
import { FUZZ_SEED, fuzzRuns, routeSeed, secretNeedles } from './properties.js';

const RUNS = fuzzRuns(20);
const routes = routesOf((await makeApi()).api);
const needles = await secretNeedles();

/** Routes nobody declared: unknown paths and traversal shapes must be a plain 404/405 envelope. */
const extra = [
  { method: 'GET', path: '/:x' },
  { method: 'POST', path: '/admin/:x/../../users' },
  { method: 'PUT', path: '/users/me' },
];

describe(`auth API fuzz (seed ${FUZZ_SEED}, ${RUNS} cases per route)`, () => {
  it('found the routes of the app', () => {
    expect(routes.length).toBeGreaterThan(80);
  });

  // One API for the whole file (a fresh one per route cost more than the cases); each route
  // starts with fresh principals. Routes run in table order, so a seed replays exactly.
  let target: Awaited<ReturnType<typeof apiTarget>>;
  beforeAll(async () => {
    target = await apiTarget();
  });

  it.each([...routes, ...extra].map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s',
    async (key, { method, path }) => {
      await target.remint();
      const label = (c: FuzzCase) => describeCase(method, path, c);
      await runCases(caseArb(path), { seed: routeSeed(key), numRuns: RUNS, label }, (c) =>
        sendToApi(target, method, path, c, needles),
      );
      if (method === 'GET') return;
      const deep = caseArb(path, { body: deepBodyArb }).map((c) => ({ ...c, contentType: 'application/json' }));
      await runCases(deep, { seed: routeSeed(`deep ${key}`), numRuns: Math.max(3, Math.ceil(RUNS / 20)), label }, (c) =>
        sendToApi(target, method, path, c, needles),
      );
    },
  );
});
