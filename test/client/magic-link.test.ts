/**
 * The client's magic-link confirmation: `requestMagicLink` gives
 * the number to show, `verifyMagicLink` the challenge (choices, who asked),
 * `confirmMagicLink(token, number)` completes it; with `same_device` the
 * client that asked keeps the binding and sends it with its own verify.
 */
import { describe, expect, it } from 'vitest';
import { createSvcClient, memoryStorage } from '../../client/index.js';
import { settle } from '../adapter/helpers.js';
import { createUser } from '../helpers/factories.js';
import { BASE_URL, nativeApp, type NativeApp } from './helpers.js';

/** A native app with a User-Agent (the API refuses a magic-link request without one). */
const uaClient = (app: NativeApp) =>
  createSvcClient({
    baseUrl: BASE_URL,
    transport: 'bearer',
    storage: memoryStorage(),
    now: () => app.h.t.clock.now(),
    fetch: (input: string, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      headers.set('user-agent', 'ExampleApp/1.0 (iPhone; iOS 17.5)');
      return app.fetch(input, { ...init, headers });
    },
  });

const linkToken = (app: Awaited<ReturnType<typeof nativeApp>>, to: string) =>
  new URL(app.sender.sent.filter((m) => m.to === to && m.magicLinkUrl).at(-1)!.magicLinkUrl!).searchParams.get(
    'token',
  )!;

describe('client: magic-link confirmation', () => {
  it('number_match: the number to show, the challenge, confirmMagicLink, then the poll signs in', async () => {
    const app = await nativeApp();
    await createUser(app.h.t, { email: 'grace@example.com' });
    const asking = uaClient(app);
    await asking.login({ identifier: 'grace@example.com' });
    const req = await asking.requestMagicLink();
    expect(req.confirmation).toBe('number_match');
    expect(req.confirmationNumber).toBeGreaterThanOrEqual(10);
    await settle();
    const token = linkToken(app, 'grace@example.com');

    const opener = uaClient(app);
    const challenge = await opener.verifyMagicLink({ token });
    expect('status' in challenge && challenge.status).toBe('confirmation_required');
    if (!('choices' in challenge)) throw new Error('expected a challenge');
    expect(challenge.choices).toContain(req.confirmationNumber);
    expect(challenge.requestedBy).toMatchObject({ browser: expect.any(String), os: expect.any(String) });
    expect(await asking.checkMagicLink()).toBeNull();

    const done = await opener.confirmMagicLink(token, req.confirmationNumber!);
    expect(done).toMatchObject({ message: 'Success', requestedBy: challenge.requestedBy });
    const session = await asking.checkMagicLink();
    expect(session).toMatchObject({ email: 'grace@example.com' });
    expect(asking.session.get().status).toBe('signed-in');
  });

  it('confirmMagicLink refuses a number outside 10–99 before any call', async () => {
    const app = await nativeApp();
    const client = app.client();
    await expect(client.confirmMagicLink('t', 7)).rejects.toThrow(TypeError);
    await expect(client.confirmMagicLink('', 12)).rejects.toThrow(TypeError);
    expect(app.calls).toEqual([]);
  });

  it('same_device: the asking client sends its binding with its verify; another client is refused', async () => {
    const app = await nativeApp({ MAGIC_LINK_CONFIRMATION: 'same_device' });
    await createUser(app.h.t, { email: 'ada@example.com' });
    const asking = uaClient(app);
    await asking.login({ identifier: 'ada@example.com' });
    const req = await asking.requestMagicLink();
    expect(req.confirmation).toBe('same_device');
    await settle();
    const token = linkToken(app, 'ada@example.com');
    await expect(uaClient(app).verifyMagicLink({ token })).rejects.toMatchObject({
      code: 'invalid_verification_token',
    });
    expect(await asking.verifyMagicLink({ token })).toMatchObject({ message: 'Success' });
    expect(await asking.checkMagicLink()).toMatchObject({ email: 'ada@example.com' });
  });
});
