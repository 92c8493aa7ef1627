/**
 * Messaging (contract §5.10) beyond the handler path of flows.test.ts: the
 * channel transports, the default renderings, the decoy's `delivery: null`,
 * an SMS with no path, and redaction of every delivery log line.
 */
import { describe, expect, it } from 'vitest';
import type { DeliveryResult, EmailMessage, SmsMessage } from '../../../common/messaging.js';
import { createUser } from '../../helpers/factories.js';
import { makeHarness, recordingMessaging, settle, signedInBrowser } from '../helpers.js';

function transports(opts: { fail?: boolean } = {}) {
  const emails: EmailMessage[] = [];
  const sms: SmsMessage[] = [];
  const email = {
    name: 'test-mail',
    send: async (m: EmailMessage): Promise<DeliveryResult> => {
      emails.push(m);
      if (opts.fail) throw new Error(`smtp refused ${m.to}`);
      return { accepted: true, provider: 'test-mail', channel: 'email' };
    },
  };
  const smsTransport = {
    name: 'test-sms',
    send: async (m: SmsMessage): Promise<DeliveryResult> => {
      sms.push(m);
      return { accepted: true, provider: 'test-sms', channel: 'sms' };
    },
  };
  return { emails, sms, email, smsTransport };
}

describe('messaging through transports', () => {
  it('sends the default email renderings through the email transport, with defaults applied', async () => {
    const tr = transports();
    const h = await makeHarness({
      messaging: { email: tr.email, defaults: { appName: 'Acme', emailFrom: 'no-reply@acme.test' } },
    });
    const reg = await h.send('POST', '/auth/registration/register', { body: { email: 'mail.user@example.com' } });
    expect(reg.status).toBe(200);
    await settle();
    expect(tr.emails).toHaveLength(1);
    const otp = tr.emails[0]!;
    expect(otp).toMatchObject({
      to: 'mail.user@example.com',
      from: 'no-reply@acme.test',
      subject: 'Acme - Verify your email',
    });
    const code = /verification code is: (\S+)/.exec(otp.text)![1]!;
    expect(otp.text).toContain('5 minutes');
    expect(otp.html).toContain(code);
    expect(reg.text).not.toContain(code);

    const user = await createUser(h.t);
    const login = await h.send('POST', '/auth/login', { body: { identifier: user.email } });
    const link = await h.send('POST', '/auth/magic-link', { cookies: login.cookies, body: {} });
    expect(link.status).toBe(200);
    await settle();
    const ml = tr.emails.at(-1)!;
    expect(ml).toMatchObject({ to: user.email, subject: 'Acme - Your sign-in link' });
    const url = /(https?:\/\/\S+)/.exec(ml.text)![1]!;
    expect(ml.text).toContain('15 minutes');
    expect(ml.html).toContain(url.replace(/&/g, '&#38;'));
    expect(link.text).not.toContain(new URL(url).searchParams.get('token')!);
    // Every delivery log line is redacted: neither the address nor the code nor the link.
    const log = JSON.stringify(h.logs);
    for (const secret of [user.email, 'mail.user@example.com', code, new URL(url).searchParams.get('token')!])
      expect(log).not.toContain(secret);
    expect(h.logs.some((l) => l.level === 'info' && l.line.includes('[REDACTED]'))).toBe(true);
  });

  it('sends the phone code through the SMS transport as `Your <app> verification code is: <code>`', async () => {
    const tr = transports();
    const h = await makeHarness({
      messaging: { email: tr.email, sms: tr.smsTransport, defaults: { appName: 'Acme', smsFrom: '+15005550006' } },
    });
    await createUser(h.t, { phone: '+14155550124', phoneVerified: true });
    const login = await h.send('POST', '/auth/login', { body: { identifier: '+14155550124' } });
    const gen = await h.send('POST', '/auth/otp/generate-login-phone-otp', { cookies: login.cookies });
    expect(gen.status).toBe(200);
    await settle();
    expect(tr.sms).toHaveLength(1);
    expect(tr.sms[0]).toMatchObject({ to: '+14155550124', from: '+15005550006' });
    expect(tr.sms[0]!.body).toMatch(/^Your Acme verification code is: \S+$/);
    expect(JSON.stringify(h.logs)).not.toContain('+14155550124');
  });

  it('logs (redacted) and answers normally when no SMS path exists or the transport throws', async () => {
    const tr = transports({ fail: true });
    const h = await makeHarness({ messaging: { email: tr.email } });
    await createUser(h.t, { phone: '+14155550125', phoneVerified: true });
    const login = await h.send('POST', '/auth/login', { body: { identifier: '+14155550125' } });
    const gen = await h.send('POST', '/auth/otp/generate-login-phone-otp', { cookies: login.cookies });
    expect(gen.status).toBe(200);
    expect(gen.text).not.toMatch(/"(token|delivery|code)"/);
    await settle();
    expect(h.logs.some((l) => l.level === 'error' && l.line.includes('otp_sms'))).toBe(true);

    const reg = await h.send('POST', '/auth/registration/register', { body: { email: 'smtp.down@example.com' } });
    expect(reg.status).toBe(200);
    await settle();
    expect(tr.emails).toHaveLength(1);
    expect(h.logs.some((l) => l.level === 'error' && l.line.includes('failed'))).toBe(true);
    const log = JSON.stringify(h.logs);
    expect(log).not.toContain('+14155550125');
    expect(log).not.toContain('smtp.down@example.com');
  });
});

describe('decoys and missing payloads', () => {
  it('sends nothing, silently, for an unknown identifier (delivery: null), with the same browser answer', async () => {
    const tr = transports();
    const h = await makeHarness({ messaging: { email: tr.email } });
    const known = await createUser(h.t);
    const realLogin = await h.send('POST', '/auth/login', { body: { identifier: known.email } });
    const decoyLogin = await h.send('POST', '/auth/login', { body: { identifier: 'nobody.here@example.com' } });
    expect(decoyLogin.status).toBe(realLogin.status);
    const real = await h.send('POST', '/auth/otp/generate-login-email-otp', { cookies: realLogin.cookies });
    const decoy = await h.send('POST', '/auth/otp/generate-login-email-otp', { cookies: decoyLogin.cookies });
    expect(decoy.status).toBe(real.status);
    expect(Object.keys(decoy.body).sort()).toEqual(Object.keys(real.body).sort());
    expect(decoy.setCookies.map((s) => s.split('=')[0])).toEqual(real.setCookies.map((s) => s.split('=')[0]));
    await settle();
    expect(tr.emails.map((m) => m.to)).toEqual([known.email]);
    expect(h.logs.filter((l) => l.level !== 'info')).toEqual([]);
  });

  it('warns once per answer and sends nothing when the API returns no delivery key', async () => {
    const tr = transports();
    const h = await makeHarness({ messaging: { email: tr.email } });
    // The API only returns `delivery` to a trusted delivery caller; simulate an API that ignored the header.
    h.intercept = async (call) => {
      if (call.path !== '/registration/register') return undefined;
      const real = await h.t.api.request(`http://auth.test${call.path}`, {
        method: 'POST',
        headers: call.headers,
        body: call.body,
      });
      const { delivery: _d, ...rest } = (await real.json()) as Record<string, unknown>;
      return new Response(JSON.stringify(rest), {
        status: real.status,
        headers: { 'content-type': 'application/json' },
      });
    };
    const reg = await h.send('POST', '/auth/registration/register', { body: { email: 'nodelivery@example.com' } });
    expect(reg.status).toBe(200);
    await settle();
    expect(tr.emails).toEqual([]);
    expect(h.logs.filter((l) => l.level === 'warn').map((l) => l.line)).toEqual([
      'svc adapter: auth API returned no delivery payload; check that serviceSecret matches API_SERVICE_TOKEN',
    ]);
  });
});

describe('organization invitation email', () => {
  it('delivers an invitation through the email transport and through its own handler; the browser never sees `delivery`', async () => {
    const tr = transports();
    const h = await makeHarness({ messaging: { email: tr.email, defaults: { appName: 'Acme' } } });
    const { user, cookies } = await signedInBrowser(h);
    const org = await h.send('POST', '/auth/organizations', { cookies, body: { name: 'Team <One>' } });
    expect(org.status).toBe(201);
    const orgId = (org.body as { organization: { id: string } }).organization.id;
    const res = await h.send('POST', `/auth/organizations/${orgId}/invitations`, {
      cookies,
      body: { email: 'invitee@example.com' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body as object)).toEqual(['invitation']);
    await settle();
    const mail = tr.emails.at(-1)!;
    const id = (res.body as { invitation: { id: string } }).invitation.id;
    expect(mail).toMatchObject({ to: 'invitee@example.com', subject: 'Acme - Invitation to join Team <One>' });
    expect(mail.text).toContain(`http://localhost:3000/invitations?invitation=${id}`);
    expect(mail.text).toContain(user.email);
    expect(mail.html).toContain('Team &#60;One&#62;');

    const rec = recordingMessaging();
    const h2 = await makeHarness({ messaging: rec.messaging });
    const b = await signedInBrowser(h2);
    const org2 = (await h2.send('POST', '/auth/organizations', { cookies: b.cookies, body: { name: 'Two' } })).body as {
      organization: { id: string };
    };
    await h2.send('POST', `/auth/organizations/${org2.organization.id}/invitations`, {
      cookies: b.cookies,
      body: { email: 'x@example.com' },
    });
    await settle();
    expect(rec.messages.at(-1)).toMatchObject({
      kind: 'organization_invitation_email',
      channel: 'email',
      to: 'x@example.com',
      organizationName: 'Two',
      invitedBy: b.user.email,
    });
  });
});
