/**
 * More of the client's bearer flows against the real adapter, TOTP bridge and
 * API: TOTP enrolment, the MFA step of an email-code sign-in completed on the
 * bridge with the in-memory ephemeral token, and an organization switch that
 * updates the session and survives a refresh.
 */
import { describe, expect, it } from 'vitest';
import type { SessionState } from '../../client/index.js';
import { codeAt } from '../helpers/totp.js';
import { nativeApp, signUp } from './helpers.js';

const lastCode = (app: Awaited<ReturnType<typeof nativeApp>>, to: string) =>
  app.sender.sent.filter((m) => m.to === to && m.code).at(-1)!.code!;

describe('client: bearer flows on the bridge and organizations', () => {
  it('enrols TOTP, then an email-code sign-in asks for it and the bridge completes the session', async () => {
    const app = await nativeApp();
    const first = app.client();
    await signUp(app, first, 'katherine@example.com');
    const enrol = await first.totpEnrollStart();
    expect(enrol.secret).toMatch(/^[A-Z2-7]+$/);
    await first.totpEnrollVerify({ code: codeAt(enrol.secret, app.h.t.clock.now()) });
    expect((await first.totpStatus()).enabled).toBe(true);

    const second = app.client();
    await second.login({ identifier: 'katherine@example.com' });
    await second.sendLoginEmailOtp();
    await new Promise((r) => setTimeout(r, 20));
    const step = await second.verifyLoginEmailOtp({ verificationToken: lastCode(app, 'katherine@example.com') });
    expect(step).toMatchObject({ mfaRequired: true, mfaMethods: ['totp'] });
    expect(step).not.toHaveProperty('token');
    expect(second.session.get().status).not.toBe('signed-in');
    app.h.t.clock.advance(30_000); // the next TOTP step (a used step is refused)
    const session = await second.totpVerifyLogin({ code: codeAt(enrol.secret, app.h.t.clock.now()) });
    expect(session).toMatchObject({ email: 'katherine@example.com' });
    expect(second.session.get().status).toBe('signed-in');
    expect((await second.me()).user.email).toBe('katherine@example.com');
  });

  it('switching organization updates the session state and the access token, and a refresh keeps it', async () => {
    const app = await nativeApp();
    const client = app.client();
    await signUp(app, client, 'mary@example.com');
    const states: SessionState[] = [];
    client.session.subscribe((s) => states.push(s));
    const { organization } = await client.createOrganization({ name: 'Analytical Engines' });
    const switched = await client.switchOrganization({ organizationId: organization.id });
    expect(switched).not.toHaveProperty('token');
    expect(client.session.get()).toMatchObject({ status: 'signed-in', activeOrganizationId: organization.id });
    expect((await client.me()).user.activeOrganizationId).toBe(organization.id);
    await client.refresh();
    expect(client.session.get()).toMatchObject({ activeOrganizationId: organization.id });
    expect(states.some((s) => s.status === 'signed-in' && s.activeOrganizationId === organization.id)).toBe(true);
  });
});
