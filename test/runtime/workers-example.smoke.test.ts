/**
 * examples/workers: two workers under one `wrangler dev` —
 * the app (svc adapter) and the auth API on a local D1 — the app reaching the
 * API only through its `AUTH` service binding. Everything goes through the
 * app worker, as a native app would (bearer transport): sign-up with the code
 * the app's delivery handler printed, /auth/users/me, an app route guarded by
 * requireAuth (JWKS fetched through the binding), refresh, logout.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, http, removeDir, startWranglerDev, tempDir, waitForHttp, type Spawned } from './processes.js';

const BEARER = { 'x-svc-auth-transport': 'bearer' };

describe('examples/workers: app worker + API worker over a service binding', () => {
  let dir: string | undefined;
  let dev: Spawned | undefined;
  let base = '';

  beforeAll(async () => {
    dir = tempDir('workers-example');
    const example = (f: string) => join(ROOT, 'examples/workers', f);
    // As the README says: the secrets come from .dev.vars (kept when it exists), never from the configs.
    execFileSync(process.execPath, [example('dev-vars.mjs')], { cwd: ROOT });
    ({ proc: dev, base } = await startWranglerDev({
      configs: [example('app.wrangler.toml'), example('api.wrangler.toml')],
      dir,
    }));
    await waitForHttp(`${base}/`, dev, 60_000);
  }, 90_000);

  afterAll(async () => {
    await dev?.stop();
    removeDir(dir);
  });

  /** The code the example app's delivery handler printed for `email`. */
  async function codeFor(email: string): Promise<string> {
    for (let i = 0; i < 50; i++) {
      const m = new RegExp(`otp_email for ${email.replace('.', '\\.')}: ([A-Z]{6})`).exec(dev!.output());
      if (m) return m[1]!;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no code printed for ${email}:\n${dev!.output().slice(-2000)}`);
  }

  it('signs up with an emailed code, serves /auth/users/me and a guarded app route, refreshes and logs out — all through the app worker', async () => {
    const reg = await http(`${base}/auth/registration/register`, {
      method: 'POST',
      headers: BEARER,
      body: { email: 'worker.user@example.com' },
    });
    expect(reg.status, JSON.stringify(reg.body)).toBe(200);
    const verify = await http(`${base}/auth/otp/verify-email-otp`, {
      method: 'POST',
      headers: { ...BEARER, authorization: `Bearer ${reg.body.token}` },
      body: { verificationToken: await codeFor('worker.user@example.com') },
    });
    expect(verify.status, JSON.stringify(verify.body)).toBe(200);
    const { token, refreshToken } = verify.body;

    const me = await http(`${base}/auth/users/me`, { headers: { ...BEARER, authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe('worker.user@example.com');
    const hello = await http(`${base}/api/hello`, { headers: { authorization: `Bearer ${token}` } });
    expect(hello.status, JSON.stringify(hello.body)).toBe(200);

    const rotated = await http(`${base}/auth/refresh`, {
      method: 'POST',
      headers: { ...BEARER, authorization: `Bearer ${refreshToken}` },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refreshToken).not.toBe(refreshToken);
    const out = await http(`${base}/auth/logout`, {
      method: 'DELETE',
      headers: { ...BEARER, authorization: `Bearer ${rotated.body.token}` },
    });
    expect(out.status).toBe(204);
    const after = await http(`${base}/auth/users/me`, {
      headers: { ...BEARER, authorization: `Bearer ${rotated.body.token}` },
    });
    expect(after.status).toBe(401);
  });
});
