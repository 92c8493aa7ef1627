/**
 * Several instances, one database: the target's workerd,
 * a second workerd and a Node API process, all on the target's sqld. A
 * refresh token raced 200 times across the three has exactly one winner and
 * the chain is revoked; a lockout counted on one holds on the others; an
 * OAuth state consumed on one cannot be replayed on another; limiter
 * counters and one-time codes are shared. Strict reuse detection: the
 * race sends no Idempotency-Key, so no replay is a retry. The race
 * runs last: in most runs it leaves sqld refusing writes for minutes (open
 * defect, docs/reliability.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCKOUT_MAX_FAILURES } from '../env.js';
import {
  call,
  ctx,
  device,
  emailCodeFor,
  expectError,
  expectOk,
  providerAccount,
  providerAuthorize,
  signUp,
  uniqueEmail,
  wrongCode,
} from '../client.js';
import { extraNode, extraWorkerd, type Instance } from '../instances.js';

/**
 * Sends a request again while it answers 503 (waiting Retry-After seconds each time, as a client
 * should), for at most RECOVERY_LIMIT_MS: after a flood, sqld may refuse writes for a while.
 */
const RECOVERY_LIMIT_MS = 90_000;
async function callAfterRetries(method: string, path: string, token: string, at: string) {
  const deadline = Date.now() + RECOVERY_LIMIT_MS;
  for (;;) {
    const r = await call(method, path, { token }, at);
    if (r.status !== 503 || Date.now() > deadline) return r;
    await new Promise((res) => setTimeout(res, Number(r.headers.get('retry-after') ?? 1) * 1000));
  }
}

let workerB: Instance | undefined;
let nodeC: Instance | undefined;
let bases: string[] = [];

beforeAll(async () => {
  [workerB, nodeC] = await Promise.all([extraWorkerd(ctx.env), extraNode(ctx.env)]);
  bases = [ctx.base, workerB.base, nodeC.base];
}, 150_000);

afterAll(async () => {
  await Promise.all([workerB?.stop(), nodeC?.stop()]);
});

describe('three instances on one sqld (workerd, workerd, Node)', () => {
  it('accept each other’s access tokens and sessions', async () => {
    const s = await signUp();
    for (const at of bases) expectOk(await call('GET', '/users/me', { token: s.token }, at));
  });

  it('a replay on one instance revokes the chain rotated on another', async () => {
    const s = await signUp();
    const rotated = await call('POST', '/refresh', { token: s.refreshToken }, workerB!.base);
    expectOk(rotated);
    expectError(await call('POST', '/refresh', { token: s.refreshToken }, nodeC!.base), 401, 'refresh_token_reused');
    expect((await call('POST', '/refresh', { token: rotated.body.refreshToken }, ctx.base)).status).toBe(401);
  });

  it('a lockout counted on one instance holds on the others', async () => {
    const s = await signUp();
    const d = device();
    const login = await call('POST', '/login', { device: d, body: { identifier: s.email } }, workerB!.base);
    const gen = await call(
      'POST',
      '/otp/generate-login-email-otp',
      { device: d, external: true, token: login.body.token },
      workerB!.base,
    );
    for (let i = 0; i < LOCKOUT_MAX_FAILURES; i++) {
      const r = await call(
        'POST',
        '/otp/verify-login-email-otp',
        { device: d, token: gen.body.token, body: { verificationToken: wrongCode(gen.body.delivery.code) } },
        workerB!.base,
      );
      expectError(r, 401, 'otp_verification_failed');
    }
    for (const at of bases)
      expectError(await call('POST', '/login', { body: { identifier: s.email } }, at), 423, 'account_locked');
  });

  it('failures spread over the three instances add up to one lockout', async () => {
    const s = await signUp();
    const { token, code, device: d } = await emailCodeFor(s.email);
    for (let i = 0; i < LOCKOUT_MAX_FAILURES; i++) {
      await call(
        'POST',
        '/otp/verify-login-email-otp',
        { device: d, token, body: { verificationToken: wrongCode(code) } },
        bases[i % 3],
      );
    }
    expectError(await call('POST', '/login', { body: { identifier: s.email } }, ctx.base), 423, 'account_locked');
  });

  it('an OAuth state consumed on one instance cannot be replayed on another', async () => {
    const sub = await providerAccount({ email: uniqueEmail('oauth-multi'), email_verified: true });
    const start = await call('POST', '/oauth/testop/start', { body: {} }, workerB!.base);
    const { code, state } = await providerAuthorize(start.body.authorizationUrl, sub);
    const binding = start.body.binding as string;
    expectOk(await call('POST', '/oauth/testop/callback', { body: { code, state, binding } }, ctx.base));
    expectError(
      await call('POST', '/oauth/testop/callback', { body: { code, state, binding } }, workerB!.base),
      400,
      'oauth_invalid_state',
    );
    expectError(
      await call('POST', '/oauth/testop/callback', { body: { code, state, binding } }, nodeC!.base),
      400,
      'oauth_invalid_state',
    );
  });

  it('an OAuth state raced to the three instances at once is consumed once', async () => {
    const sub = await providerAccount({ email: uniqueEmail('oauth-race'), email_verified: true });
    const start = await call('POST', '/oauth/testop/start', { body: {} }, nodeC!.base);
    const { code, state } = await providerAuthorize(start.body.authorizationUrl, sub);
    const answers = await Promise.all(
      bases.map((at) =>
        call('POST', '/oauth/testop/callback', { body: { code, state, binding: start.body.binding } }, at),
      ),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) expect(r.status).toBe(400);
  });

  it('an email code verified on one instance cannot be used on another', async () => {
    const s = await signUp();
    const { token, code, device: d } = await emailCodeFor(s.email);
    const answers = await Promise.all(
      bases.map((at) =>
        call('POST', '/otp/verify-login-email-otp', { device: d, token, body: { verificationToken: code } }, at),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401, 401]);
  });

  it('share the per-IP flow limiter: ten registrations spread over the three, the eleventh is limited everywhere', async () => {
    const d = device();
    for (let i = 0; i < 10; i++)
      expectOk(
        await call(
          'POST',
          '/registration/register',
          { device: d, body: { email: uniqueEmail(`multi-limit${i}`) } },
          bases[i % 3],
        ),
      );
    for (const at of bases)
      expectError(
        await call('POST', '/registration/register', { device: d, body: { email: uniqueEmail('multi-limit-x') } }, at),
        429,
        'rate_limited',
      );
  });

  it('a logout on one instance ends the session on the others', async () => {
    const s = await signUp();
    expectOk(await call('DELETE', '/logout', { token: s.token }, nodeC!.base));
    expectError(await call('GET', '/users/me', { token: s.token }, workerB!.base), 401, 'unauthorized');
    expect((await call('POST', '/refresh', { token: s.refreshToken }, ctx.base)).status).toBe(401);
  });
  it(
    'let exactly one of 200 refreshes of one token, raced across the three, win; every loser is told reuse or 503 + Retry-After',
    async () => {
      const s = await signUp();
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) => call('POST', '/refresh', { token: s.refreshToken }, bases[i % 3])),
      );
      const tally = answers.reduce<Record<string, number>>(
        (m, r) => (
          (m[`${r.status} ${r.body?.error ?? 'ok'}`] = (m[`${r.status} ${r.body?.error ?? 'ok'}`] ?? 0) + 1), m
        ),
        {},
      );
      console.log(`200 refreshes over three instances on one sqld: ${JSON.stringify(tally)}`);
      const winners = answers.filter((r) => r.status === 200);
      expect(winners, JSON.stringify(tally)).toHaveLength(1);
      // Every loser is told so: a reuse (the chain is revoked) or, when the loaded machine makes a
      // database call overrun DB_TIMEOUT_MS, 503 service_unavailable with Retry-After — never a 500
      // and never a second session.
      for (const r of answers.filter((x) => x.status !== 200)) {
        if (r.status === 503) {
          expect(r.body.error).toBe('service_unavailable');
          expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        } else {
          expect(r.status, JSON.stringify(r.body)).toBe(401);
          expect(r.body.error).toMatch(/^(refresh_token_reused|invalid_refresh_token)$/);
        }
      }
      expect(tally['401 refresh_token_reused']).toBeGreaterThan(0);
      // The chain's revocation across instances is the case above ('a replay on one instance…'): after
      // this race sqld has refused writes for minutes in most runs (open defect, docs/reliability.md),
      // so it is checked here only with CONFORMANCE_SQLD_RECOVERY=1, waiting out 503s for up to 90 s.
      if (!process.env['CONFORMANCE_SQLD_RECOVERY']) return;
      const recoveryStartedMs = Date.now();
      for (const at of bases) {
        expect((await callAfterRetries('POST', '/refresh', winners[0]!.body.refreshToken, at)).status).toBe(401);
        expect((await callAfterRetries('POST', '/refresh', s.refreshToken, at)).status).toBe(401);
      }
      expectError(await callAfterRetries('GET', '/users/me', winners[0]!.body.token, nodeC!.base), 401, 'unauthorized');
      console.log(
        `after the race, answers other than 503 came back within ${((Date.now() - recoveryStartedMs) / 1000).toFixed(1)} s`,
      );
    },
    RECOVERY_LIMIT_MS + 60_000,
  );
});
