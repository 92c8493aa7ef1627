/**
 * Headers that must survive a real server on every runtime:
 * under @hono/node-server 1.x the 423's Retry-After and the 405's Allow were
 * dropped while in-process tests (app.request) passed. Checked over a socket.
 * The caller's server runs with smokeEnv (LOCKOUT_POLICY maxFailures 3).
 */
import { expect } from 'vitest';
import { http } from './processes.js';
import { sessionInSharedDb } from './remote-session.js';

export async function expectHeadersOverSocket(base: string, env: Record<string, string>) {
  // 405 with Allow
  const wrongMethod = await http(`${base}/users/me`, { method: 'PUT' });
  expect(wrongMethod.status).toBe(405);
  expect(wrongMethod.body).toMatchObject({ error: 'method_not_allowed' });
  expect(wrongMethod.headers.get('allow')).toBe('GET');

  // 423 with Retry-After: three wrong codes lock the account, the next /login answers 423.
  const { user, close } = await sessionInSharedDb(env);
  try {
    for (let i = 0; i < 3; i++) {
      const login = await http(`${base}/login`, { method: 'POST', body: { identifier: user.email } });
      expect(login.status, JSON.stringify(login.body)).toBe(200);
      const wrong = await http(`${base}/otp/verify-login-email-otp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${login.body.token}` },
        body: { verificationToken: 'ZZZZZZ' },
      });
      expect(wrong.status).toBe(401);
    }
    const locked = await http(`${base}/login`, { method: 'POST', body: { identifier: user.email } });
    expect(locked.status).toBe(423);
    expect(locked.body).toMatchObject({ error: 'account_locked', retryAfterSeconds: expect.any(Number) });
    expect(Number(locked.headers.get('retry-after'))).toBe(locked.body.retryAfterSeconds);
    expect(locked.headers.get('content-type')).toMatch(/^application\/json/);
  } finally {
    close();
  }
}
