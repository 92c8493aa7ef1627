/**
 * A queued webhook delivery survives a crash: `src/node.ts` as a real process
 * commits an event (with its delivery, one batch), starts sending to a
 * receiver that never answers, and is killed with SIGKILL mid-send. A second
 * process on the same database file, with no request made to it, reclaims the
 * row once the dead sender's lease has ended (its background loop) and
 * delivers it, with the same `webhook-id` and a signature that verifies.
 */
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/db/schema.js';
import { wrapClient } from '../../src/db/client.js';
import { createEndpoint } from '../../src/services/webhooks/endpoints.js';
import { makeApi, prepareClient } from '../helpers/make-app.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { BIN, freePort, http, removeDir, smokeEnv, start, tempDir, waitForHttp, type Spawned } from './processes.js';

describe('event webhooks across a crash (src/node.ts, SIGKILL)', () => {
  const dir = tempDir('webhooks-crash');
  const procs: Spawned[] = [];
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    removeDir(dir);
  });

  it('a delivery committed before the kill is sent by the restarted process', async () => {
    const dbUrl = `file:${join(dir, 'svc.db')}`;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {
      ...smokeEnv(base, dbUrl),
      PORT: String(port),
      HOST: '127.0.0.1',
      // A short attempt timeout keeps the dead sender's lease short (timeout + 5 s).
      WEBHOOK_TIMEOUT_MS: '1000',
    };

    // The endpoint, made through the service on the same file and with the same secrets as the processes.
    const client = await prepareClient(dbUrl);
    const seed = await makeApi({ client, env: { API_SERVICE_TOKEN: env['API_SERVICE_TOKEN']!, ISSUER: base } });
    const hook = await startReceiver(() => {
      /* first answer: never (the sender is killed while waiting) */
    });
    const { secret } = await createEndpoint(
      seed.api.deps,
      { url: hook.url, eventTypes: ['request_suspicious'], enabled: true },
      { actorUserId: 'seed', sessionId: 'seed', ipAddress: null, userAgent: null },
    );
    await seed.api.close();

    const first = start(process.execPath, [...BIN.tsxNode, 'src/node.ts'], { env });
    procs.push(first);
    await waitForHttp(`${base}/health/status`, first, 60_000);
    // An unknown route writes `request_suspicious`: the event and its delivery commit, then the send starts.
    expect((await http(`${base}/no-such-route-${Date.now()}`)).status).toBe(404);
    const [sent] = await hook.waitFor(1, 20_000);
    process.kill(-first.child.pid!, 'SIGKILL');
    await first.exited;

    const check = wrapClient(await prepareClient(dbUrl), 'file').db;
    const [queued] = await check.select().from(webhookDeliveries);
    expect(queued).toMatchObject({ status: 'pending', attempts: 1, id: sent!.headers['webhook-id'] });
    expect(queued!.leaseId).not.toBeNull();

    hook.respond = (_req, res) => {
      res.writeHead(204).end();
    };
    const second = start(process.execPath, [...BIN.tsxNode, 'src/node.ts'], { env });
    procs.push(second);
    const [, redelivered] = await hook.waitFor(2, 45_000);
    expect(redelivered!.headers['webhook-id']).toBe(queued!.id);
    const payload = new Webhook(secret).verify(redelivered!.body, redelivered!.headers) as { type: string };
    expect(payload.type).toBe('request_suspicious');
    await expect
      .poll(
        async () =>
          (await check.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, queued!.id)))[0]?.status,
        {
          timeout: 10_000,
        },
      )
      .toBe('succeeded');
    await second.stop();
    await hook.close();
  }, 120_000);
});
