/**
 * Changing email or phone (docs/contact-change.md), black box: the code and
 * the notice come back as `delivery` under external delivery, as the sign-in
 * sends do.
 */
import { describe, expect, it } from 'vitest';
import { call, expectError, expectOk, signInWithEmailCode, signUp, uniqueEmail, wrongCode } from '../client.js';

const change = (token: string, email: string) =>
  call('POST', '/users/me/email/change', { token, external: true, body: { email } });
const verify = (token: string, code: string) =>
  call('POST', '/users/me/email/verify', { token, external: true, body: { code } });

describe('changing email', () => {
  it('sends the code to the new address and changes only on that code', async () => {
    const s = await signUp();
    const to = uniqueEmail('moved');
    const r = await change(s.token, to);
    expectOk(r);
    expect(r.body).toMatchObject({ message: 'Success', expiresInSeconds: 300 });
    expect(r.body.delivery).toMatchObject({ kind: 'contact_change_email', to });
    expect((await call('GET', '/users/me', { token: s.token })).body.user.email).toBe(s.email);
    const v = await verify(s.token, r.body.delivery.code);
    expectOk(v);
    expect(v.body).toMatchObject({ message: 'Success', channel: 'email', value: to });
    expect(v.body.delivery).toMatchObject({ kind: 'contact_change_notice_email', to: s.email });
    expect((await call('GET', '/users/me', { token: s.token })).body.user.email).toBe(to);
    expectError(await verify(s.token, r.body.delivery.code), 400, 'invalid_verification_token');
  });

  it('answers a taken address as a free one, and refuses it at the code step', async () => {
    const owner = await signUp();
    const a = await signUp();
    const b = await signUp();
    const free = await change(a.token, uniqueEmail('free'));
    const taken = await change(b.token, owner.email);
    expect(taken.status).toBe(free.status);
    const { delivery: df, ...bodyFree } = free.body;
    const { delivery: dt, ...bodyTaken } = taken.body;
    expect(bodyTaken).toEqual(bodyFree);
    expect(Object.keys(dt).sort()).toEqual(Object.keys(df).sort());
    expectError(await verify(b.token, dt.code), 409, 'email_in_use');
    expect((await call('GET', '/users/me', { token: b.token })).body.user.email).toBe(b.email);
  });

  it('refuses a wrong code and a verify without a change', async () => {
    const s = await signUp();
    expectError(await verify(s.token, 'ABCDEF'), 400, 'invalid_verification_token');
    const r = await change(s.token, uniqueEmail('wrong'));
    expectError(await verify(s.token, wrongCode(r.body.delivery.code)), 400, 'invalid_verification_token');
  });

  it('ends the other sessions, and the report token ends them all, once', async () => {
    const s = await signUp();
    const other = await signInWithEmailCode(s.email);
    const r = await change(s.token, uniqueEmail('report'));
    const v = await verify(s.token, r.body.delivery.code);
    expectOk(v);
    expect(v.body.revokedSessions).toBeGreaterThanOrEqual(1);
    expectError(await call('GET', '/users/me', { token: other.token }), 401, 'unauthorized');
    expectOk(await call('GET', '/users/me', { token: s.token }));
    const token = new URL(v.body.delivery.reportUrl).searchParams.get('token');
    expectOk(await call('POST', '/users/contact-change/report', { body: { token } }));
    expectError(await call('GET', '/users/me', { token: s.token }), 401, 'unauthorized');
    expectError(
      await call('POST', '/users/contact-change/report', { body: { token } }),
      400,
      'invalid_verification_token',
    );
  });

  it('refuses an invalid address with the error envelope', async () => {
    const s = await signUp();
    expectError(await change(s.token, 'not-an-email'), 400, 'invalid_request');
    expectError(
      await call('POST', '/users/me/phone/change', { token: s.token, body: { phone: '12' } }),
      400,
      'invalid_request',
    );
  });
});
