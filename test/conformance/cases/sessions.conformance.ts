/** Refresh rotation and reuse detection, logout and the session list (contract §3.8, §3.9). */
import { describe, expect, it } from 'vitest';
import { call, device, expectError, expectOk, signInWithEmailCode, signUp } from '../client.js';

const refresh = (refreshToken: string, idempotencyKey?: string) =>
  call('POST', '/refresh', {
    token: refreshToken,
    ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
  });

describe('refresh rotation', () => {
  it('rotates: a new pair, and the new access token works', async () => {
    const s = await signUp();
    const r = await refresh(s.refreshToken);
    expectOk(r);
    expect(r.body).toMatchObject({
      message: 'Success',
      sub: s.sub,
      token: expect.any(String),
      refreshToken: expect.any(String),
    });
    expect(r.body.refreshToken).not.toBe(s.refreshToken);
    expectOk(await call('GET', '/users/me', { token: r.body.token }));
  });

  it('detects a replayed refresh token with 401 refresh_token_reused', async () => {
    const s = await signUp();
    expectOk(await refresh(s.refreshToken));
    expectError(await refresh(s.refreshToken), 401, 'refresh_token_reused');
  });

  it('with the shipped defaults, retries a lost answer only with the same Idempotency-Key', async () => {
    const s = await signUp();
    const lost = await refresh(s.refreshToken, 'conformance-lost-answer-1');
    expectOk(lost);
    const retry = await refresh(s.refreshToken, 'conformance-lost-answer-1');
    expectOk(retry);
    expect(retry.body.refreshToken).not.toBe(lost.body.refreshToken);
    expectError(await call('GET', '/users/me', { token: lost.body.token }), 401, 'unauthorized');
    // Another key is reuse: the chain, the fresh pair included, is revoked.
    expectError(await refresh(s.refreshToken, 'conformance-other-key-22'), 401, 'refresh_token_reused');
    expectError(await call('GET', '/users/me', { token: retry.body.token }), 401, 'unauthorized');
  });

  it('answers 400 invalid_request to a malformed Idempotency-Key', async () => {
    const s = await signUp();
    expectError(await refresh(s.refreshToken, 'short'), 400, 'invalid_request');
    expectOk(await refresh(s.refreshToken));
  });

  it('revokes the whole chain on reuse: the successor stops working too', async () => {
    const s = await signUp();
    const next = await refresh(s.refreshToken);
    expectError(await refresh(s.refreshToken), 401, 'refresh_token_reused');
    const successor = await refresh(next.body.refreshToken);
    expect(successor.status).toBe(401);
    expect(successor.body.error).toMatch(/^(refresh_token_reused|invalid_refresh_token)$/);
  });

  it('kills the access tokens of a reused chain', async () => {
    const s = await signUp();
    const next = await refresh(s.refreshToken);
    await refresh(s.refreshToken);
    expectError(await call('GET', '/users/me', { token: next.body.token }), 401, 'unauthorized');
  });

  it('answers 401 invalid_refresh_token to an unknown token', async () => {
    expectError(await refresh('x'.repeat(64)), 401, 'invalid_refresh_token');
  });

  it('answers 401 unauthorized to a refresh without any token', async () => {
    expectError(await call('POST', '/refresh'), 401, 'unauthorized');
  });

  it('refuses an access token on /refresh', async () => {
    const s = await signUp();
    const r = await refresh(s.token);
    expect(r.status).toBe(401);
  });

  it('takes the refresh token from the bearer only: one in the JSON body answers 401 unauthorized', async () => {
    const s = await signUp();
    expectError(await call('POST', '/refresh', { body: { refreshToken: s.refreshToken } }), 401, 'unauthorized');
    expectOk(await refresh(s.refreshToken));
  });

  it('lets exactly one of 20 racing refreshes of one token win', async () => {
    const s = await signUp();
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(s.refreshToken)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(401);
      expect(r.body.error).toMatch(/^(refresh_token_reused|invalid_refresh_token)$/);
    }
  });

  it('keeps rotating along a chain of ten', async () => {
    const s = await signUp();
    let token = s.refreshToken;
    for (let i = 0; i < 10; i++) {
      const r = await refresh(token);
      expectOk(r);
      token = r.body.refreshToken;
    }
  });
});

describe('logout', () => {
  it('DELETE /logout ends the current session: its refresh token and access token stop working', async () => {
    const s = await signUp();
    const r = await call('DELETE', '/logout', { token: s.token });
    expectOk(r);
    expect(r.body).toEqual({ message: 'Success' });
    expect((await refresh(s.refreshToken)).status).toBe(401);
    expectError(await call('GET', '/users/me', { token: s.token }), 401, 'unauthorized');
  });

  it('DELETE /logout is idempotent', async () => {
    const s = await signUp();
    expectOk(await call('DELETE', '/logout', { token: s.token }));
    expectOk(await call('DELETE', '/logout', { token: s.token }));
  });

  it('DELETE /logout without a token answers 401', async () => {
    expectError(await call('DELETE', '/logout'), 401, 'unauthorized');
  });

  it('DELETE /logout/all ends every session and reports the count', async () => {
    const s = await signUp();
    const other = await signInWithEmailCode(s.email);
    const r = await call('DELETE', '/logout/all', { token: s.token });
    expectOk(r);
    expect(r.body).toMatchObject({ message: 'Success', revokedSessions: 2 });
    expect((await refresh(other.refreshToken)).status).toBe(401);
  });

  it('GET /logout is the deprecated alias of DELETE /logout/all', async () => {
    const s = await signUp();
    const r = await call('GET', '/logout', { token: s.token });
    expectOk(r);
    expect(r.headers.get('deprecation')).toBe('true');
    expect(r.body.revokedSessions).toBe(1);
  });
});

describe('the session list', () => {
  it('lists the active sessions and flags the current one', async () => {
    const s = await signUp();
    await signInWithEmailCode(s.email);
    const r = await call('GET', '/sessions', { token: s.token });
    expectOk(r);
    expect(r.body.total).toBe(2);
    expect(r.body.sessions.filter((x: { current: boolean }) => x.current)).toHaveLength(1);
    expect(r.body.sessions[0]).toMatchObject({
      id: expect.any(String),
      createdAt: expect.anything(),
      expiresAt: expect.anything(),
    });
  });

  it('records the trusted client IP on the session', async () => {
    const d = device();
    const s = await signUp(undefined, d);
    const r = await call('GET', '/sessions', { token: s.token });
    expect(r.body.sessions[0].ipAddress).toBe(d.ip);
  });

  it('DELETE /sessions/:id revokes one of the user’s own sessions', async () => {
    const s = await signUp();
    const other = await signInWithEmailCode(s.email);
    expectOk(await call('DELETE', `/sessions/${other.sessionId}`, { token: s.token }));
    expect((await refresh(other.refreshToken)).status).toBe(401);
    expectOk(await refresh(s.refreshToken));
  });

  it('DELETE /sessions/:id answers 404 for another user’s session and leaves it alone', async () => {
    const a = await signUp();
    const b = await signUp();
    expectError(await call('DELETE', `/sessions/${b.sessionId}`, { token: a.token }), 404, 'not_found');
    expectOk(await refresh(b.refreshToken));
  });

  it('DELETE /sessions ends the other sessions and keeps the current one', async () => {
    const s = await signUp();
    const o1 = await signInWithEmailCode(s.email);
    const o2 = await signInWithEmailCode(s.email);
    const r = await call('DELETE', '/sessions', { token: s.token });
    expectOk(r);
    expect(r.body.revokedSessions).toBe(2);
    expect((await refresh(o1.refreshToken)).status).toBe(401);
    expect((await refresh(o2.refreshToken)).status).toBe(401);
    expectOk(await call('GET', '/users/me', { token: s.token }));
  });

  it('hides a rotated-away session from the list', async () => {
    const s = await signUp();
    const r1 = await refresh(s.refreshToken);
    const list = await call('GET', '/sessions', { token: r1.body.token });
    expect(list.body.total).toBe(1);
  });
});
