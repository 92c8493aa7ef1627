import { describe, expect, it } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';

describe('POST /refresh', () => {
  it('rotates a refresh token into a new pair for a new session id', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const first = await signIn(t, user);
    const res = await t.call('POST', '/refresh', { token: first.refreshToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: 'Success', sub: user.id, email: user.email, roles: ['user'], ttl: 900 });
    expect(res.body.sessionId).not.toBe(first.sessionId);
    expect(res.body.refreshToken).not.toBe(first.refreshToken);
    expect(res.body.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const me = await t.call('GET', '/users/me', { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(user.id);
  });
});
