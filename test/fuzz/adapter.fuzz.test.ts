/**
 * Property-based fuzzing of every adapter route on both frameworks (no input
 * answers 500): Hono in memory, Express over a real loopback port. The routes come
 * from the adapter's route table (common/route-table.ts), so a new route
 * is fuzzed without touching this file. Same properties as the API suite.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { honoMount, type Mount } from '../adapter/helpers.js';
import { closeServers, expressMount } from '../adapter/express/harness.js';
import { adapterRoutes, adapterTarget, sendToAdapter } from './adapter-target.js';
import { deepBodyArb } from './arbitraries.js';
import { caseArb, describeCase, runCases } from './request-arb.js';
import { FUZZ_SEED, fuzzRuns, routeSeed, secretNeedles } from './properties.js';

const RUNS = fuzzRuns(8);
const needles = await secretNeedles();
const routes = adapterRoutes();

afterAll(closeServers);

describe.each([
  ['Hono', honoMount],
  ['Express', expressMount],
] as [string, Mount][])(`%s adapter fuzz (seed ${FUZZ_SEED}, ${RUNS} cases per route)`, (name, mount) => {
  // One harness per framework (a fresh one per route cost more than the cases); each route
  // starts with fresh cookies. Routes run in table order, so a seed replays exactly.
  let target: Awaited<ReturnType<typeof adapterTarget>>;
  beforeAll(async () => {
    target = await adapterTarget(mount);
  });
  afterAll(async () => {
    await target.h.driver.close();
  });

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s',
    async (key, { method, path, raw, compat }) => {
      await target.remint();
      await runCases(
        caseArb(path, { maxHeaderValue: name === 'Express' ? 2_000 : 20_000 }),
        { seed: routeSeed(`${name} ${key}`), numRuns: RUNS, label: (c) => describeCase(method, path, c) },
        (c) =>
          // A compatibility GET form calls its POST route upstream.
          sendToAdapter(target, method, path, c, needles, raw, compat?.upstreamMethod ?? method),
      );
    },
  );

  // Deeply nested JSON answered 500 on the adapters: now 400 before any upstream call.
  it.each(routes.filter((r) => r.method !== 'GET').map((r) => [`${r.method} ${r.path}`, r] as const))(
    'deeply nested JSON: %s',
    async (key, { method, path }) => {
      const target = await adapterTarget(mount);
      try {
        const deep = caseArb(path, { body: deepBodyArb, maxHeaderValue: name === 'Express' ? 2_000 : 20_000 }).map(
          (c) => ({ ...c, contentType: 'application/json' }),
        );
        await runCases(
          deep,
          { seed: routeSeed(`deep ${name} ${key}`), numRuns: 3, label: (c) => describeCase(method, path, c) },
          (c) => sendToAdapter(target, method, path, c, needles),
        );
      } finally {
        await target.h.driver.close();
      }
    },
  );
});
