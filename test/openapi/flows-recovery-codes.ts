/** Recovery codes for the response drift test (docs/recovery-codes.md): run while TOTP is on and the session is fresh. */
import { expect } from 'vitest';
import type { TestApi } from '../helpers/make-app.js';
import { externalDelivery } from '../helpers/service-token.js';
import type { SignedInUser } from './flows-sign-in.js';

export async function recoveryCodeFlow(t: TestApi, user: SignedInUser, email: string) {
  const generated = await t.call('POST', '/recovery-codes', { token: user.token });
  expect(generated.status).toBe(200);
  const [first, second] = generated.body.codes as string[];
  expect((await t.call('POST', '/step-up/recovery-code', { token: user.token, body: { code: 'nope' } })).status).toBe(
    403,
  );
  expect((await t.call('POST', '/step-up/recovery-code', { token: user.token, body: { code: first } })).status).toBe(
    200,
  );
  const login = await t.call('POST', '/login', { body: { identifier: email } });
  const code = await t.call('POST', '/otp/generate-login-email-otp', {
    token: login.body.token,
    headers: await externalDelivery(t.clock.now()),
  });
  const mfa = await t.call('POST', '/otp/verify-login-email-otp', {
    token: code.body.token,
    body: { verificationToken: code.body.delivery.code },
  });
  expect(mfa.body.mfaRequired).toBe(true);
  expect(
    (await t.call('POST', '/recovery-codes/verify-login', { token: mfa.body.token, body: { code: first } })).status,
  ).toBe(401);
  const session = await t.call('POST', '/recovery-codes/verify-login', {
    token: mfa.body.token,
    body: { code: second },
  });
  expect(session.status).toBe(200);
}
