/**
 * Magic links: request, verify from any device, poll from the requester
 * (contract §3.5), with the default `magic_link_confirmation: number_match`
 * so the owner decides who signs in: the verify completes only with the number the request showed.
 */
import { describe, expect, it } from 'vitest';
import { APP_ORIGIN } from '../env.js';
import { call, device, expectError, expectOk, signUp, uniqueEmail, type Device } from '../client.js';

async function requestLink(email: string, d: Device, body: Record<string, unknown> = {}) {
  const login = await call('POST', '/login', { device: d, body: { identifier: email } });
  expectOk(login);
  const req = await call('POST', '/magic-link', { device: d, external: true, token: login.body.token, body });
  return { loginToken: login.body.token as string, req };
}

const linkToken = (url: string) => new URL(url).searchParams.get('token')!;

/** The link's page picks the number the asking tab shows. */
const confirmLink = (req: { body: { delivery: { magicLinkUrl: string }; confirmationNumber: number } }) =>
  call('POST', `/magic-link/verify/${linkToken(req.body.delivery.magicLinkUrl)}`, {
    body: { number: req.body.confirmationNumber },
  });

describe('magic link', () => {
  it('request → verify on another device → check on the requester issues a session once', async () => {
    const s = await signUp();
    const d = device();
    const { loginToken, req } = await requestLink(s.email, d);
    expectOk(req);
    expect(req.body.delivery).toMatchObject({
      kind: 'magic_link_email',
      magicLinkUrl: expect.stringContaining(`${APP_ORIGIN}/`),
    });
    const pending = await call('POST', '/magic-link/check', { device: d, token: loginToken });
    expect(pending.status).toBe(204);
    expectOk(await confirmLink(req));
    const done = await call('POST', '/magic-link/check', { device: d, token: loginToken });
    expectOk(done);
    expect(done.body).toMatchObject({ sub: s.sub, token: expect.any(String), refreshToken: expect.any(String) });
    const again = await call('POST', '/magic-link/check', { device: d, token: loginToken });
    expect(again.status).not.toBe(200);
  });

  it('answers 400 invalid_verification_token to a used link', async () => {
    const s = await signUp();
    const d = device();
    const { req } = await requestLink(s.email, d);
    const token = linkToken(req.body.delivery.magicLinkUrl);
    expectOk(await confirmLink(req));
    expectError(await call('POST', `/magic-link/verify/${token}`), 400, 'invalid_verification_token');
  });

  it('a bare verify answers the number challenge and does not complete the poll; a wrong number cancels the link', async () => {
    const s = await signUp();
    const d = device();
    const { loginToken, req } = await requestLink(s.email, d);
    const token = linkToken(req.body.delivery.magicLinkUrl);
    const challenge = await call('POST', `/magic-link/verify/${token}`);
    expectOk(challenge);
    expect(challenge.body).toMatchObject({ status: 'confirmation_required', confirmation: 'number_match' });
    expect(challenge.body.choices).toContain(req.body.confirmationNumber);
    expect((await call('POST', '/magic-link/check', { device: d, token: loginToken })).status).toBe(204);
    const wrong = req.body.confirmationNumber === 99 ? 98 : req.body.confirmationNumber + 1;
    expectError(
      await call('POST', `/magic-link/verify/${token}`, { body: { number: wrong } }),
      400,
      'magic_link_confirmation_failed',
    );
    expectError(await confirmLink(req), 400, 'invalid_verification_token');
    expect((await call('POST', '/magic-link/check', { device: d, token: loginToken })).status).toBe(204);
  });

  it('answers 400 invalid_verification_token to an unknown link', async () => {
    expectError(await call('POST', `/magic-link/verify/${'A'.repeat(43)}`), 400, 'invalid_verification_token');
  });

  it('a new request expires the earlier link', async () => {
    const s = await signUp();
    const d = device();
    const first = await requestLink(s.email, d);
    const second = await requestLink(s.email, d);
    expectOk(second.req);
    expectError(
      await call('POST', `/magic-link/verify/${linkToken(first.req.body.delivery.magicLinkUrl)}`),
      400,
      'invalid_verification_token',
    );
  });

  it('a poll from another device stays 204 after the link is verified', async () => {
    const s = await signUp();
    const d = device();
    const { loginToken, req } = await requestLink(s.email, d);
    expectOk(await confirmLink(req));
    const stranger = await call('POST', '/magic-link/check', { device: device(), token: loginToken });
    expect(stranger.status).toBe(204);
  });

  it('mints one session for ten concurrent polls after one verify', async () => {
    const s = await signUp();
    const d = device();
    const { loginToken, req } = await requestLink(s.email, d);
    expectOk(await confirmLink(req));
    const polls = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', '/magic-link/check', { device: d, token: loginToken })),
    );
    expect(polls.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it('puts the token on an allowed redirectUri', async () => {
    const s = await signUp();
    const { req } = await requestLink(s.email, device(), { redirectUri: `${APP_ORIGIN}/auth/landing` });
    expectOk(req);
    expect(req.body.delivery.magicLinkUrl).toMatch(new RegExp(`^${APP_ORIGIN}/auth/landing\\?token=`));
  });

  it('refuses a redirectUri on another origin with 400 redirect_not_allowed', async () => {
    const s = await signUp();
    const { req } = await requestLink(s.email, device(), { redirectUri: 'https://evil.example/landing' });
    expectError(req, 400, 'redirect_not_allowed');
  });

  it('answers a decoy with the same shape, a null delivery and a pending poll', async () => {
    const d = device();
    const { loginToken, req } = await requestLink(uniqueEmail('ghost'), d);
    expectOk(req);
    expect(req.body.delivery).toBeNull();
    expect((await call('POST', '/magic-link/check', { device: d, token: loginToken })).status).toBe(204);
  });
});
