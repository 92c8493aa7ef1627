/**
 * The parity suite (contract §5.14): every scenario runs through the Hono
 * adapter (in memory) and the Express adapter (a real http.Server on an
 * ephemeral port), each against a fresh real in-process auth API, and the
 * normalised transcripts (status, adapter headers, parsed body, Set-Cookie
 * list with Expires masked, upstream calls) must be equal. Each scenario also
 * asserts its own outcomes, so two equally broken adapters cannot pass.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeServers } from './harness.js';
import { runBoth } from './parity.js';
import { FLOW_SCENARIOS } from './scenarios-flows.js';
import { GUARD_SCENARIOS } from './scenarios-guards.js';

afterAll(closeServers);

describe('Express ≡ Hono (parity)', () => {
  it.each([...FLOW_SCENARIOS, ...GUARD_SCENARIOS].map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const { hono, express } = await runBoth(scenario);
    expect(hono.entries.length).toBeGreaterThan(3);
    expect(express.entries).toEqual(hono.entries);
  });
});
