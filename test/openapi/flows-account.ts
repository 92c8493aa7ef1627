/** Signed-in flows for the response drift test: sessions, passkeys, step-up, TOTP, organizations. */
import { expect } from 'vitest';
import type { TestApi } from '../helpers/make-app.js';
import { assertWith, loginToken, registerPasskey } from '../helpers/passkeys.js';
import { externalDelivery } from '../helpers/service-token.js';
import { codeAt, STEP_MS } from '../helpers/totp.js';
import type { SignedInUser } from './flows-sign-in.js';
import { recoveryCodeFlow } from './flows-recovery-codes.js';

export async function sessionFlow(t: TestApi, user: SignedInUser) {
  expect((await t.call('GET', '/users/me', { token: user.token })).status).toBe(200);
  expect((await t.call('GET', '/users/me')).status).toBe(401);
  expect((await t.call('GET', '/users/me', { token: 'not-a-jwt' })).status).toBe(401);
  expect((await t.call('GET', '/sessions', { token: user.token })).status).toBe(200);
  expect((await t.call('DELETE', '/sessions/no-such-session', { token: user.token })).status).toBe(404);
  const { body } = await t.call('GET', '/sessions', { token: user.token });
  const other = body.sessions.find((s: { current: boolean }) => !s.current);
  expect((await t.call('DELETE', `/sessions/${other.id}`, { token: user.token })).status).toBe(200);
  expect((await t.call('DELETE', '/sessions', { token: user.token })).status).toBe(200);
  expect((await t.call('GET', '/step-up/status', { token: user.token })).status).toBe(200);
}

/** Registers a passkey, signs in with it, steps up, renames it; returns the authenticator. */
export async function passkeyFlow(t: TestApi, user: SignedInUser) {
  const { authenticator, start, finish } = await registerPasskey(t, user.token, {
    metadata: { friendlyName: 'Laptop' },
  });
  expect([start.status, finish.status]).toEqual([200, 200]);
  // Step-up is now required for enrollment (the user has a factor): a 403 with the status extras.
  expect((await t.call('POST', '/webauthn/register/start', { token: user.token, body: {} })).status).toBe(403);
  const login = await assertWith(t, '/webauthn/login', await loginToken(t, user.sub), authenticator);
  expect([login.start.status, login.finish.status]).toEqual([200, 200]);
  const stepUp = await assertWith(t, '/step-up/webauthn', user.token, authenticator);
  expect([stepUp.start.status, stepUp.finish.status]).toEqual([200, 200]);
  const renamed = await t.call('POST', '/users/credentials', {
    token: user.token,
    body: { id: finish.body.credential.id, friendlyName: 'Work laptop' },
  });
  expect(renamed.status).toBe(200);
  expect((await t.call('POST', '/users/credentials', { token: user.token, body: { id: 'missing' } })).status).toBe(404);
  expect((await t.call('DELETE', '/users/credentials', { token: user.token, body: { id: 'missing' } })).status).toBe(
    404,
  );
  expect(
    (await t.call('DELETE', '/users/credentials', { token: user.token, body: { id: finish.body.credential.id } }))
      .status,
  ).toBe(200);
  return { authenticator, credentialId: finish.body.credential.id as string, login: login.finish };
}

/** Enrolls TOTP (step-up fresh), signs in through the MFA step, steps up with a code, disables it. */
export async function totpFlow(t: TestApi, user: SignedInUser, email: string) {
  expect((await t.call('GET', '/totp/status', { token: user.token })).status).toBe(200);
  const start = await t.call('POST', '/totp/enroll/start', { token: user.token });
  expect(start.status).toBe(200);
  const secret: string = start.body.secret;
  expect((await t.call('POST', '/totp/enroll/verify', { token: user.token, body: { code: '000000x' } })).status).toBe(
    403,
  );
  expect(
    (await t.call('POST', '/totp/enroll/verify', { token: user.token, body: { code: codeAt(secret, t.clock.now()) } }))
      .status,
  ).toBe(200);

  t.clock.advance(STEP_MS);
  const login = await t.call('POST', '/login', { body: { identifier: email } });
  const code = await t.call('POST', '/otp/generate-login-email-otp', {
    token: login.body.token,
    headers: await externalDelivery(t.clock.now()),
  });
  const mfa = await t.call('POST', '/otp/verify-login-email-otp', {
    token: code.body.token,
    body: { verificationToken: code.body.delivery.code },
  });
  expect(mfa.status).toBe(200);
  expect(mfa.body.mfaRequired).toBe(true);
  expect((await t.call('POST', '/totp/verify-login', { token: mfa.body.token, body: { code: 'nope' } })).status).toBe(
    401,
  );
  const session = await t.call('POST', '/totp/verify-login', {
    token: mfa.body.token,
    body: { code: codeAt(secret, t.clock.now()) },
  });
  expect(session.status).toBe(200);

  t.clock.advance(STEP_MS);
  expect(
    (await t.call('POST', '/totp/verify-mfa', { token: user.token, body: { code: codeAt(secret, t.clock.now()) } }))
      .status,
  ).toBe(200);
  await recoveryCodeFlow(t, user, email);
  t.clock.advance(STEP_MS);
  expect(
    (await t.call('POST', '/totp/disable', { token: user.token, body: { code: codeAt(secret, t.clock.now()) } }))
      .status,
  ).toBe(200);
}

export async function organizationFlow(
  t: TestApi,
  owner: SignedInUser,
  member: { token: string; user: { email: string } },
) {
  const created = await t.call('POST', '/organizations', { token: owner.token, body: { name: 'Acme Inc' } });
  expect(created.status).toBe(201);
  const id: string = created.body.organization.id;
  expect((await t.call('GET', '/organizations', { token: owner.token })).status).toBe(200);
  expect((await t.call('GET', `/organizations/${id}`, { token: owner.token })).status).toBe(200);
  expect((await t.call('GET', '/organizations/missing', { token: owner.token })).status).toBe(404);
  expect((await t.call('PATCH', `/organizations/${id}`, { token: owner.token, body: { name: 'Acme' } })).status).toBe(
    200,
  );
  expect((await t.call('PATCH', `/organizations/${id}`, { token: owner.token, body: { unknown: 1 } })).status).toBe(
    400,
  );
  // Users join by invitation (the direct add is the admin route).
  const invited = await t.call('POST', `/organizations/${id}/invitations`, {
    token: owner.token,
    body: { email: member.user.email },
    headers: await externalDelivery(t.clock.now()),
  });
  expect(invited.status).toBe(201);
  expect(invited.body.delivery.kind).toBe('organization_invitation_email');
  expect((await t.call('GET', `/organizations/${id}/invitations`, { token: owner.token })).status).toBe(200);
  expect((await t.call('GET', '/organizations/invitations', { token: member.token })).body.invitations).toHaveLength(1);
  expect((await t.call('POST', '/organizations/invitations/missing/accept', { token: member.token })).status).toBe(404);
  const accepted = await t.call('POST', `/organizations/invitations/${invited.body.invitation.id}/accept`, {
    token: member.token,
  });
  expect(accepted.status).toBe(200);
  const memberId: string = accepted.body.membership.userId;
  const other = await t.call('POST', `/organizations/${id}/invitations`, {
    token: owner.token,
    body: { email: 'someone@example.com' },
  });
  expect(
    (await t.call('DELETE', `/organizations/${id}/invitations/${other.body.invitation.id}`, { token: owner.token }))
      .status,
  ).toBe(200);
  const again = await t.call('POST', `/organizations/${id}/invitations`, {
    token: owner.token,
    body: { email: member.user.email },
  });
  expect(
    (await t.call('POST', `/organizations/invitations/${again.body.invitation.id}/decline`, { token: member.token }))
      .status,
  ).toBe(200);
  expect((await t.call('GET', `/organizations/${id}/members`, { token: owner.token })).status).toBe(200);
  expect(
    (
      await t.call('PATCH', `/organizations/${id}/members/${memberId}`, {
        token: owner.token,
        body: { scopes: ['members:read'] },
      })
    ).status,
  ).toBe(200);
  expect((await t.call('DELETE', `/organizations/${id}/members/${owner.sub}`, { token: owner.token })).status).toBe(
    400,
  );
  expect((await t.call('POST', `/organizations/${id}/switch`, { token: owner.token })).status).toBe(200);
  expect((await t.call('DELETE', `/organizations/${id}/members/${memberId}`, { token: owner.token })).status).toBe(200);
  return id;
}
