/**
 * The refresh flood, bounded: 300 concurrent refreshes of
 * one token across two API processes on one sqld. Every request answers — 200,
 * 401 reuse, or 503 with Retry-After once the (short) deadline passes — the
 * chain keeps at most one live head, and sqld still completes a write.
 * `npm run flood` runs the full 500–1,000 request version and, with
 * FLOOD_NO_DEADLINES=1, shows the hang this prevents. The deterministic proof
 * of the deadline is test/api/routes/deadline.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../bench/soak/cluster.js';
import { runFlood } from '../../bench/soak/flood.js';
import { removeDir, tempDir } from '../runtime/processes.js';

let cluster: Cluster | undefined;
const dir = tempDir('flood-test');
const retryDir = tempDir('flood-test-retry');
afterAll(async () => {
  await cluster?.stopApis();
  await cluster?.stopSqld();
  removeDir(dir);
  removeDir(retryDir);
});

describe('refresh flood on sqld', () => {
  it('answers every request (200, 401 reuse or 503 + Retry-After), keeps at most one live head, and leaves sqld writable', async () => {
    cluster = await startCluster(dir, 2, { REQUEST_DEADLINE_MS: '3000' });
    let r = await runFlood(cluster, 300, 30_000);
    if (r.writeAfterMs === null && r.unanswered === 0 && r.bad5xx === 0 && r.liveHeads <= 1) {
      // sqld 0.24.32 stopping to complete writes after a flood on a loaded machine is the open defect in
      // docs/reliability.md (seen once in a CI-like run of 2026-11-27 at load ~5, passing alone). As the soak
      // does, repeat once on a fresh sqld; every other failure, and a second wedge, fails below.
      console.warn(
        `flood: sqld completed no write within 30 s after the flood (${JSON.stringify(r.byStatus)}); repeating once on a fresh sqld`,
      );
      await cluster.stopApis();
      await cluster.stopSqld();
      cluster = await startCluster(retryDir, 2, { REQUEST_DEADLINE_MS: '3000' });
      r = await runFlood(cluster, 300, 30_000);
    }
    const summary = JSON.stringify(r);
    expect(r.unanswered, summary).toBe(0);
    expect(r.bad5xx, summary).toBe(0);
    for (const key of Object.keys(r.byStatus))
      expect(key, summary).toMatch(
        /^(200|401 (refresh_token_reused|invalid_refresh_token)|503 service_unavailable \(Retry-After\))$/,
      );
    expect(r.byStatus['200'], summary).toBeGreaterThanOrEqual(1);
    expect(r.liveHeads, summary).toBeLessThanOrEqual(1);
    expect(r.writeAfterMs, summary).not.toBeNull();
  }, 120_000);
});
