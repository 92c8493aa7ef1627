/** Registration, email and phone codes, anti-enumeration (contract §3.2–§3.5). */
import { describe, expect, it } from 'vitest';
import {
  call,
  device,
  emailCodeFor,
  expectError,
  expectOk,
  signInWithEmailCode,
  signUp,
  uniqueEmail,
  uniquePhone,
  wrongCode,
} from '../client.js';

describe('registration with an email code', () => {
  it('registers, returns a session envelope and /users/me knows the user', async () => {
    const s = await signUp();
    expect(s).toMatchObject({
      message: 'Success',
      token: expect.any(String),
      refreshToken: expect.any(String),
      sub: expect.any(String),
      roles: ['user'],
    });
    const me = await call('GET', '/users/me', { token: s.token });
    expectOk(me);
    expect(me.body.user).toMatchObject({ id: s.sub, email: s.email });
  });

  it('lower-cases and trims the email', async () => {
    const email = uniqueEmail('case');
    const s = await signUp(`  ${email.toUpperCase()} `);
    const me = await call('GET', '/users/me', { token: s.token });
    expect(me.body.user.email).toBe(email);
  });

  it('delivers a 6-letter code with the registration token in external mode', async () => {
    const r = await call('POST', '/registration/register', { external: true, body: { email: uniqueEmail('code') } });
    expectOk(r);
    expect(r.body).toMatchObject({ message: 'Success', token: expect.any(String), ttl: expect.any(Number) });
    expect(r.body.delivery).toMatchObject({ kind: 'otp_email', code: expect.stringMatching(/^[A-Z]{6}$/) });
  });

  it('never returns the code to a caller without external delivery', async () => {
    const r = await call('POST', '/registration/register', { body: { email: uniqueEmail('nodelivery') } });
    expectOk(r);
    expect(r.body.delivery).toBeUndefined();
    expect(JSON.stringify(r.body)).not.toMatch(/"code"/);
  });

  it('refuses a wrong code with 401 otp_verification_failed', async () => {
    const d = device();
    const reg = await call('POST', '/registration/register', {
      device: d,
      external: true,
      body: { email: uniqueEmail('wrong') },
    });
    const r = await call('POST', '/otp/verify-email-otp', {
      device: d,
      token: reg.body.token,
      body: { verificationToken: wrongCode(reg.body.delivery.code) },
    });
    expectError(r, 401, 'otp_verification_failed');
  });

  it('accepts the code case-insensitively', async () => {
    const d = device();
    const reg = await call('POST', '/registration/register', {
      device: d,
      external: true,
      body: { email: uniqueEmail('lower') },
    });
    const r = await call('POST', '/otp/verify-email-otp', {
      device: d,
      token: reg.body.token,
      body: { verificationToken: reg.body.delivery.code.toLowerCase() },
    });
    expectOk(r);
  });

  it('consumes a code once: the second use fails', async () => {
    const d = device();
    const reg = await call('POST', '/registration/register', {
      device: d,
      external: true,
      body: { email: uniqueEmail('once') },
    });
    const body = { verificationToken: reg.body.delivery.code };
    expectOk(await call('POST', '/otp/verify-email-otp', { device: d, token: reg.body.token, body }));
    const again = await call('POST', '/otp/verify-email-otp', { device: d, token: reg.body.token, body });
    expect(again.status).toBe(401);
  });

  it('answers a verified email the same shape as a new one (no enumeration)', async () => {
    const s = await signUp();
    const known = await call('POST', '/registration/register', { body: { email: s.email } });
    const unknown = await call('POST', '/registration/register', { body: { email: uniqueEmail('fresh') } });
    expect(known.status).toBe(unknown.status);
    expect(Object.keys(known.body).sort()).toEqual(Object.keys(unknown.body).sort());
  });

  it('lets the code sent to a verified email sign that user in', async () => {
    const s = await signUp();
    const d = device();
    const reg = await call('POST', '/registration/register', { device: d, external: true, body: { email: s.email } });
    const r = await call('POST', '/otp/verify-email-otp', {
      device: d,
      token: reg.body.token,
      body: { verificationToken: reg.body.delivery.code },
    });
    expectOk(r);
    expect(r.body.sub).toBe(s.sub);
  });

  it('issues a fresh code from generate-email-otp and the old one stops working', async () => {
    const d = device();
    const reg = await call('POST', '/registration/register', {
      device: d,
      external: true,
      body: { email: uniqueEmail('regen') },
    });
    const gen = await call('POST', '/otp/generate-email-otp', { device: d, external: true, token: reg.body.token });
    expectOk(gen);
    const old = await call('POST', '/otp/verify-email-otp', {
      device: d,
      token: gen.body.token,
      body: { verificationToken: reg.body.delivery.code },
    });
    if (gen.body.delivery.code !== reg.body.delivery.code) expect(old.status).toBe(401);
    const ok = await call('POST', '/otp/verify-email-otp', {
      device: d,
      token: gen.body.token,
      body: { verificationToken: gen.body.delivery.code },
    });
    expectOk(ok);
  });
});

describe('sign-in with an email code', () => {
  it('starts with /login and lists the enabled methods', async () => {
    const s = await signUp();
    const r = await call('POST', '/login', { body: { identifier: s.email } });
    expectOk(r);
    expect(r.body).toMatchObject({ sub: s.sub, identifierType: 'email', token: expect.any(String) });
    expect(r.body.loginMethods).toEqual(expect.arrayContaining(['magic_link', 'email_otp']));
  });

  it('answers an unknown email with the same shape (a decoy subject)', async () => {
    const r = await call('POST', '/login', { body: { identifier: uniqueEmail('ghost') } });
    expectOk(r);
    expect(r.body).toMatchObject({ sub: expect.any(String), token: expect.any(String), identifierType: 'email' });
  });

  it('signs in with the emailed code', async () => {
    const s = await signUp();
    const again = await signInWithEmailCode(s.email);
    expect(again.sub).toBe(s.sub);
    expect(again.sessionId).not.toBe(s.sessionId);
  });

  it('gives a decoy a null delivery and no session', async () => {
    const d = device();
    const login = await call('POST', '/login', { device: d, body: { identifier: uniqueEmail('decoy') } });
    const gen = await call('POST', '/otp/generate-login-email-otp', {
      device: d,
      external: true,
      token: login.body.token,
    });
    expectOk(gen);
    expect(gen.body.delivery).toBeNull();
    const r = await call('POST', '/otp/verify-login-email-otp', {
      device: d,
      token: gen.body.token,
      body: { verificationToken: 'ABCDEF' },
    });
    expectError(r, 401, 'otp_verification_failed');
  });

  it('refuses a wrong login code with 401 otp_verification_failed', async () => {
    const s = await signUp();
    const { token, code, device: d } = await emailCodeFor(s.email);
    expectError(
      await call('POST', '/otp/verify-login-email-otp', {
        device: d,
        token,
        body: { verificationToken: wrongCode(code) },
      }),
      401,
      'otp_verification_failed',
    );
  });

  it('lets two racing submissions of one code mint one session', async () => {
    const s = await signUp();
    const { token, code, device: d } = await emailCodeFor(s.email);
    const submit = () =>
      call('POST', '/otp/verify-login-email-otp', { device: d, token, body: { verificationToken: code } });
    const answers = await Promise.all([submit(), submit(), submit()]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401, 401]);
  });

  it('refuses the registration token on the login verify route', async () => {
    const d = device();
    const reg = await call('POST', '/registration/register', {
      device: d,
      external: true,
      body: { email: uniqueEmail('ctx') },
    });
    const r = await call('POST', '/otp/verify-login-email-otp', {
      device: d,
      token: reg.body.token,
      body: { verificationToken: reg.body.delivery.code },
    });
    expectError(r, 401, 'unauthorized');
  });
});

describe('phone codes', () => {
  it('verifies a phone at registration with a 6-digit SMS code', async () => {
    const d = device();
    const phone = uniquePhone();
    const reg = await call('POST', '/registration/register', {
      device: d,
      external: true,
      body: { email: uniqueEmail('phone'), phone },
    });
    expectOk(reg);
    const gen = await call('POST', '/otp/generate-phone-otp', { device: d, external: true, token: reg.body.token });
    expectOk(gen);
    expect(gen.body.delivery).toMatchObject({ kind: 'otp_sms', to: phone, code: expect.stringMatching(/^\d{6}$/) });
    const ok = await call('POST', '/otp/verify-phone-otp', {
      device: d,
      token: gen.body.token,
      body: { verificationToken: gen.body.delivery.code },
    });
    expectOk(ok);
    expect(ok.body).toEqual({ message: 'Success' });
  });

  it('answers 400 phone_not_available for a registration without a phone', async () => {
    const d = device();
    const reg = await call('POST', '/registration/register', { device: d, body: { email: uniqueEmail('nophone') } });
    expectError(
      await call('POST', '/otp/generate-phone-otp', { device: d, token: reg.body.token }),
      400,
      'phone_not_available',
    );
  });

  it('signs in by phone after the phone is verified', async () => {
    const d = device();
    const phone = uniquePhone();
    const email = uniqueEmail('phonelogin');
    const reg = await call('POST', '/registration/register', { device: d, external: true, body: { email, phone } });
    // The phone is verified within the registration, before the email code completes it.
    const gen = await call('POST', '/otp/generate-phone-otp', { device: d, external: true, token: reg.body.token });
    expectOk(gen);
    expectOk(
      await call('POST', '/otp/verify-phone-otp', {
        device: d,
        token: gen.body.token,
        body: { verificationToken: gen.body.delivery.code },
      }),
    );
    const email1 = await call('POST', '/otp/verify-email-otp', {
      device: d,
      token: gen.body.token,
      body: { verificationToken: reg.body.delivery.code },
    });
    expectOk(email1);

    const login = await call('POST', '/login', { device: d, body: { identifier: phone } });
    expect(login.body).toMatchObject({ identifierType: 'phone', sub: email1.body.sub });
    const sms = await call('POST', '/otp/generate-login-phone-otp', {
      device: d,
      external: true,
      token: login.body.token,
    });
    expectOk(sms);
    const ok = await call('POST', '/otp/verify-login-phone-otp', {
      device: d,
      token: sms.body.token,
      body: { verificationToken: sms.body.delivery.code },
    });
    expectOk(ok);
    expect(ok.body.sub).toBe(email1.body.sub);
  });

  it('answers phone_not_available for an email login of a user without a phone', async () => {
    const s = await signUp();
    const d = device();
    const login = await call('POST', '/login', { device: d, body: { identifier: s.email } });
    expectError(
      await call('POST', '/otp/generate-login-phone-otp', { device: d, token: login.body.token }),
      400,
      'phone_not_available',
    );
  });
});
