/**
 * Recovery codes through both adapters (docs/recovery-codes.md): the three
 * routes of the route table, in the cookie transport (access cookie; the MFA
 * step reads the pre-auth cookie and answers with session cookies, never a
 * token in the body) and the bearer transport, on Hono and Express.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeServers, makeExpressHarness } from '../express/harness.js';
import { makeHarness, signedInBrowser, type Harness } from '../helpers.js';
import { mfaToken, totpStepUp } from '../../helpers/recovery-codes.js';
import { enrollTotp, STEP_ALIGNED_START_MS } from '../../helpers/totp.js';

const ENV = { DISABLE_AUTH_RATE_LIMITS: 'true' };
const BEARER = { 'x-svc-auth-transport': 'bearer' };

const harnesses: [string, () => Promise<Harness>][] = [
  ['Hono', () => makeHarness({}, ENV, { clockStartMs: STEP_ALIGNED_START_MS })],
  ['Express', () => makeExpressHarness({}, ENV, { clockStartMs: STEP_ALIGNED_START_MS })],
];

afterAll(closeServers);

/** A browser signed in as a TOTP user whose session just stepped up. */
async function steppedUp(h: Harness) {
  const b = await signedInBrowser(h);
  const secret = await enrollTotp(h.t, b.env.token);
  await totpStepUp(h.t, b.env.token, secret);
  return b;
}

describe.each(harnesses)('recovery codes through the %s adapter', (_name, make) => {
  it('cookie transport: generate, MFA step with the pre-auth cookie, step-up, count in me', async () => {
    const h = await make();
    const { user, cookies } = await steppedUp(h);
    const gen = await h.send('POST', '/auth/recovery-codes', { cookies });
    expect(gen.status).toBe(200);
    expect(gen.body.codes).toHaveLength(10);
    const [first, second] = gen.body.codes as string[];

    const preAuth = {
      'svc-ephemeral': h.cookie({ kind: 'ephemeral', sub: user.id, token: await mfaToken(h.t, user) }, 300),
    };
    const wrong = await h.send('POST', '/auth/recovery-codes/verify-login', { cookies: preAuth, body: { code: 'x' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('recovery_code_invalid');
    const done = await h.send('POST', '/auth/recovery-codes/verify-login', { cookies: preAuth, body: { code: first } });
    expect(done.status).toBe(200);
    expect(done.body).not.toHaveProperty('token');
    expect(done.body).not.toHaveProperty('refreshToken');
    expect(done.cookies['svc-access']).toBeTruthy();
    expect(done.cookies['svc-ephemeral']).toBeUndefined();

    const up = await h.send('POST', '/auth/step-up/recovery-code', { cookies: done.cookies, body: { code: second } });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ fresh: true, method: 'recovery_code' });
    const me = await h.send('GET', '/auth/users/me', { cookies: done.cookies });
    expect(me.body.recoveryCodesRemaining).toBe(8);
  });

  it('bearer transport: the same routes with Authorization, tokens in the body', async () => {
    const h = await make();
    const { user, env } = await steppedUp(h);
    const auth = (token: string) => ({ ...BEARER, authorization: `Bearer ${token}` });
    const gen = await h.send('POST', '/auth/recovery-codes', { headers: auth(env.token) });
    expect(gen.status).toBe(200);
    const [first, second] = gen.body.codes as string[];
    const done = await h.send('POST', '/auth/recovery-codes/verify-login', {
      headers: auth(await mfaToken(h.t, user)),
      body: { code: first },
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ token: expect.any(String), refreshToken: expect.any(String) });
    const up = await h.send('POST', '/auth/step-up/recovery-code', {
      headers: auth(done.body.token),
      body: { code: second },
    });
    expect(up.status).toBe(200);
    expect(up.body.method).toBe('recovery_code');
    // A spent code through the adapter: the API's 403 envelope as is.
    const again = await h.send('POST', '/auth/step-up/recovery-code', {
      headers: auth(done.body.token),
      body: { code: second },
    });
    expect(again.status).toBe(403);
    expect(again.body.error).toBe('recovery_code_invalid');
  });
});
