/**
 * Magic-link confirmation through the adapter: the number passes
 * through to the verify; with `same_device` the binding lives in a signed
 * HttpOnly cookie of the asking browser (cookie transport) or in the app
 * (bearer transport), and a link opened in another browser is refused.
 * Express runs the same flows in the parity suite (scenarios-flows.ts).
 */
import { describe, expect, it } from 'vitest';
import { createUser } from '../../helpers/factories.js';
import { makeHarness, recordingMessaging, settle, type Harness } from '../helpers.js';

const BEARER = { 'x-svc-auth-transport': 'bearer' };
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };

async function asked(h: Harness, messages: { magicLinkUrl?: string }[], email: string) {
  await createUser(h.t, { email });
  const login = await h.send('POST', '/auth/login', { body: { identifier: email } });
  const req = await h.send('POST', '/auth/magic-link', { cookies: login.cookies, body: {} });
  expect(req.status).toBe(200);
  await settle();
  const token = new URL(messages.at(-1)!.magicLinkUrl!).searchParams.get('token')!;
  return { login, req, token };
}

const lastUpstreamBody = (h: Harness, pathPart: string) => {
  const call = [...h.upstream].reverse().find((c) => c.path.includes(pathPart));
  return call?.body ? JSON.parse(call.body) : undefined;
};

describe('adapter: number_match (default)', () => {
  it('the request shows the number; the verify passes {number} through; the poll gets the session after it', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging });
    const { login, req, token } = await asked(h, messages, 'nm.user@example.com');
    expect(req.body.confirmation).toBe('number_match');
    expect(typeof req.body.confirmationNumber).toBe('number');
    expect(req.setCookies.filter((c) => c.startsWith('svc-magic-link='))).toEqual([]);
    expect(messages.at(-1)!.requestedBy).toMatchObject({ browser: 'Unknown', os: 'Unknown', place: null });
    expect(messages.at(-1)!.text).toContain('Requested from Unknown on Unknown, at ');

    const challenge = await h.send('GET', `/auth/magic-link/verify/${token}`, { headers: SAME_ORIGIN });
    expect(challenge.status).toBe(200);
    expect(challenge.body).toMatchObject({ status: 'confirmation_required', confirmation: 'number_match' });
    expect(challenge.body.choices).toContain(req.body.confirmationNumber);
    expect((await h.send('POST', '/auth/magic-link/check', { cookies: login.cookies })).status).toBe(204);

    const ok = await h.send('POST', `/auth/magic-link/verify/${token}`, {
      body: { number: req.body.confirmationNumber },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe('Success');
    expect(lastUpstreamBody(h, '/magic-link/verify/')).toEqual({ number: req.body.confirmationNumber });
    const done = await h.send('POST', '/auth/magic-link/check', { cookies: login.cookies });
    expect(done.status).toBe(200);
    expect(done.cookies['svc-access']).toBeTruthy();
  });

  it('a wrong number is forwarded and spends the link', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging });
    const { login, req, token } = await asked(h, messages, 'nm.wrong@example.com');
    const wrong = req.body.confirmationNumber === 99 ? 98 : req.body.confirmationNumber + 1;
    const res = await h.send('POST', `/auth/magic-link/verify/${token}`, { body: { number: wrong } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('magic_link_confirmation_failed');
    expect(
      (await h.send('POST', `/auth/magic-link/verify/${token}`, { body: { number: req.body.confirmationNumber } }))
        .status,
    ).toBe(400);
    expect((await h.send('POST', '/auth/magic-link/check', { cookies: login.cookies })).status).toBe(204);
  });
});

describe('adapter: same_device', () => {
  const env = { MAGIC_LINK_CONFIRMATION: 'same_device' };

  it('cookie transport: the binding becomes a signed HttpOnly cookie for the link lifetime and never reaches the page', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging }, env);
    const { login, req, token } = await asked(h, messages, 'sd.user@example.com');
    expect(req.body).not.toHaveProperty('binding');
    expect(req.body.confirmation).toBe('same_device');
    const set = req.setCookies.find((c) => c.startsWith('svc-magic-link='))!;
    expect(set).toMatch(/; Max-Age=900;/);
    expect(set).toMatch(/; HttpOnly/);
    const cookie = req.cookies['svc-magic-link']!;
    expect(cookie.split('.')).toHaveLength(3);

    // Another browser (no cookie), a page-written binding, a forged cookie:
    // refused like an unknown token; the poll gets nothing.
    for (const attempt of [
      {},
      { body: { binding: 'A'.repeat(43) } },
      { cookies: { 'svc-magic-link': `${cookie.slice(0, -4)}AAAA` } },
    ]) {
      const res = await h.send('POST', `/auth/magic-link/verify/${token}`, attempt);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_verification_token');
      expect((await h.send('POST', '/auth/magic-link/check', { cookies: login.cookies })).status).toBe(204);
    }

    const ok = await h.send('POST', `/auth/magic-link/verify/${token}`, { cookies: { 'svc-magic-link': cookie } });
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe('Success');
    expect(lastUpstreamBody(h, '/magic-link/verify/')).toEqual({
      binding: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(ok.cookies['svc-magic-link']).toBeUndefined();
    const done = await h.send('POST', '/auth/magic-link/check', { cookies: login.cookies });
    expect(done.status).toBe(200);
    expect(done.cookies['svc-access']).toBeTruthy();
  });

  it('the GET form of the verify carries the cookie binding too', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging }, env);
    const { login, req, token } = await asked(h, messages, 'sd.get@example.com');
    const res = await h.send('GET', `/auth/magic-link/verify/${token}`, {
      cookies: { 'svc-magic-link': req.cookies['svc-magic-link']! },
      headers: SAME_ORIGIN,
    });
    expect(res.status).toBe(200);
    expect((await h.send('POST', '/auth/magic-link/check', { cookies: login.cookies })).status).toBe(200);
  });

  it('bearer transport: the app receives the binding and sends it back', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging }, env);
    await createUser(h.t, { email: 'sd.app@example.com' });
    const login = await h.send('POST', '/auth/login', { body: { identifier: 'sd.app@example.com' }, headers: BEARER });
    const auth = { ...BEARER, authorization: `Bearer ${login.body.token}` };
    const req = await h.send('POST', '/auth/magic-link', { body: {}, headers: auth });
    expect(req.body.binding).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(req.setCookies).toEqual([]);
    await settle();
    const token = new URL(messages.at(-1)!.magicLinkUrl!).searchParams.get('token')!;
    expect((await h.send('POST', `/auth/magic-link/verify/${token}`, { headers: BEARER })).status).toBe(400);
    expect(
      (
        await h.send('POST', `/auth/magic-link/verify/${token}`, {
          headers: BEARER,
          body: { binding: req.body.binding },
        })
      ).status,
    ).toBe(200);
    const done = await h.send('POST', '/auth/magic-link/check', { headers: auth });
    expect(done.status).toBe(200);
    expect(done.body.token).toBeTruthy();
  });
});
