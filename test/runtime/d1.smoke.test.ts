/**
 * The auth API on workerd with a real local D1: `wrangler dev`
 * with `wrangler.toml` as shipped (binding `DB`, no DATABASE_URL), so storage
 * is miniflare's D1. Flows over HTTP: migrations at boot (and after
 * `wrangler d1 migrations apply`), sign-up with a code, rotation and strict
 * reuse detection, a refresh race and an OTP race with exactly one winner,
 * shared rate-limit counters, and the cron handler.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceToken } from '../helpers/service-token.js';
import {
  BIN,
  ROOT,
  freePort,
  http,
  removeDir,
  smokeEnv,
  startWranglerDev,
  tempDir,
  waitForHttp,
  wranglerEnv,
  type Spawned,
} from './processes.js';

async function startWorker(dir: string): Promise<{ worker: Spawned; base: string; env: Record<string, string> }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { DATABASE_URL: _url, ...env } = smokeEnv(base, 'unused');
  const { proc: worker } = await startWranglerDev({
    configs: [join(ROOT, 'wrangler.toml')],
    dir,
    port,
    logLevel: 'warn',
    extra: ['--test-scheduled'],
    vars: env,
  });
  await waitForHttp(`${base}/health/status`, worker, 60_000);
  return { worker, base, env };
}

const json = { 'content-type': 'application/json' };

let device = 0;
/**
 * A trusted client IP per flow (service token + x-svc-client-ip), so the per-IP
 * flow limits of one test do not spill into the next.
 */
async function trusted(secret: string, ip = `203.0.113.${++device}`) {
  return { 'x-svc-service-token': await serviceToken(Date.now(), { secret }), 'x-svc-client-ip': ip };
}

async function signUp(base: string, secret: string, email: string) {
  const delivery = { ...(await trusted(secret)), 'x-svc-auth-delivery-mode': 'external' };
  const reg = await http(`${base}/registration/register`, { method: 'POST', headers: delivery, body: { email } });
  expect(reg.status, JSON.stringify(reg.body)).toBe(200);
  const verify = await http(`${base}/otp/verify-email-otp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${reg.body.token}` },
    body: { verificationToken: reg.body.delivery.code },
  });
  expect(verify.status, JSON.stringify(verify.body)).toBe(200);
  return verify.body as { token: string; refreshToken: string; sub: string };
}

describe('auth API on workerd with a local D1 (binding DB)', () => {
  let dir: string | undefined;
  let worker: Spawned | undefined;
  let base = '';
  let secret = '';

  beforeAll(async () => {
    dir = tempDir('d1');
    const started = await startWorker(dir);
    worker = started.worker;
    base = started.base;
    secret = started.env['API_SERVICE_TOKEN']!;
  }, 90_000);

  afterAll(async () => {
    await worker?.stop();
    removeDir(dir);
  });

  it('migrates at boot (two first requests at once) and signs up with an emailed code', async () => {
    const [a, b] = await Promise.all([http(`${base}/.well-known/jwks.json`), http(`${base}/oauth/providers`)]);
    expect(a.status, worker!.output()).toBe(200);
    expect(b.status).toBe(200);
    const session = await signUp(base, secret, 'd1.user@example.com');
    const me = await http(`${base}/users/me`, { headers: { authorization: `Bearer ${session.token}` } });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe('d1.user@example.com');
  });

  it('rotates once, detects the replay, and lets exactly one of ten racing refreshes win', async () => {
    const session = await signUp(base, secret, 'd1.rotation@example.com');
    const rotated = await http(`${base}/refresh`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.refreshToken}` },
    });
    expect(rotated.status).toBe(200);
    const replay = await http(`${base}/refresh`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.refreshToken}` },
    });
    expect(replay.body.error).toBe('refresh_token_reused');

    const racer = await signUp(base, secret, 'd1.race@example.com');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        http(`${base}/refresh`, { method: 'POST', headers: { authorization: `Bearer ${racer.refreshToken}` } }),
      ),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200))
      expect(r.body.error).toMatch(/^(refresh_token_reused|invalid_refresh_token)$/);
  });

  it('consumes an OTP once when two submissions race', async () => {
    await signUp(base, secret, 'd1.otp@example.com');
    const device = await trusted(secret);
    const login = await http(`${base}/login`, {
      method: 'POST',
      headers: device,
      body: { identifier: 'd1.otp@example.com' },
    });
    const gen = await http(`${base}/otp/generate-login-email-otp`, {
      method: 'POST',
      headers: { ...device, 'x-svc-auth-delivery-mode': 'external', authorization: `Bearer ${login.body.token}` },
    });
    expect(gen.status, JSON.stringify(gen.body)).toBe(200);
    const submit = () =>
      http(`${base}/otp/verify-login-email-otp`, {
        method: 'POST',
        headers: { ...json, ...device, authorization: `Bearer ${gen.body.token}` },
        body: { verificationToken: gen.body.delivery.code },
      });
    const answers = await Promise.all([submit(), submit(), submit()]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401, 401]);
  });

  it('counts rate-limit hits in D1 and runs the cron maintenance', async () => {
    const first = await http(`${base}/health/status`);
    const second = await http(`${base}/health/status`);
    expect(Number(second.headers.get('ratelimit-remaining'))).toBe(
      Number(first.headers.get('ratelimit-remaining')) - 1,
    );
    const cron = await fetch(`${base}/__scheduled?cron=*/15+*+*+*+*`);
    expect(cron.status).toBe(200);
    expect(await cron.text()).toContain('Ran scheduled event');
    await new Promise((r) => setTimeout(r, 500));
    expect(worker!.output()).not.toMatch(/maintenance failed|boot failed|Uncaught/);
  });

  it('boots on a database migrated ahead of time with `wrangler d1 migrations apply` (no file applied twice)', async () => {
    const fresh = tempDir('d1-wrangler');
    try {
      const apply = await promisify(execFile)(
        process.execPath,
        [
          BIN.wrangler,
          'd1',
          'migrations',
          'apply',
          'DB',
          '--local',
          '--config',
          join(ROOT, 'wrangler.toml'),
          '--persist-to',
          join(fresh, 'state'),
        ],
        {
          cwd: ROOT,
          env: { ...process.env, ...wranglerEnv(join(fresh, 'wrangler-logs')) },
        },
      );
      expect(apply.stdout).toMatch(/0000_init\.sql/);
      const second = await startWorker(fresh);
      try {
        const session = await signUp(second.base, second.env['API_SERVICE_TOKEN']!, 'd1.premigrated@example.com');
        expect(session.refreshToken).toEqual(expect.any(String));
        expect(second.worker.output()).not.toMatch(/boot failed/);
      } finally {
        await second.worker.stop();
      }
    } finally {
      removeDir(fresh);
    }
  }, 120_000);
});
