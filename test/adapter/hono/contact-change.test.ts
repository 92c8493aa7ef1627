/**
 * Changing email through svcAdapter (docs/contact-change.md): the change and
 * verify routes are `D` routes, so with `messaging` the code and the notice
 * go out through the app's transports and never reach the browser's body.
 */
import { describe, expect, it } from 'vitest';
import type { DeliveryResult, EmailMessage } from '../../../common/messaging.js';
import { makeHarness, settle, signedInBrowser } from '../helpers.js';

describe('contact change through the Hono adapter', () => {
  it('sends the code and the notice through messaging, and keeps them out of the body', async () => {
    const emails: EmailMessage[] = [];
    const email = {
      name: 'test-mail',
      send: async (m: EmailMessage): Promise<DeliveryResult> => {
        emails.push(m);
        return { accepted: true, provider: 'test-mail', channel: 'email' };
      },
    };
    const h = await makeHarness({ messaging: { email, defaults: { appName: 'Acme' } } });
    const { user, cookies } = await signedInBrowser(h);
    const change = await h.send('POST', '/auth/users/me/email/change', {
      cookies,
      body: { email: 'moved@example.com' },
    });
    expect(change.status).toBe(200);
    expect(change.body).toEqual({ message: 'Success', expiresInSeconds: 300 });
    await settle();
    expect(emails.map((m) => [m.to, m.subject])).toEqual([
      ['moved@example.com', 'Acme - Confirm your new email address'],
    ]);
    const code = /this email address is: (\S+)/.exec(emails[0]!.text)![1]!;
    expect(change.text).not.toContain(code);

    const verify = await h.send('POST', '/auth/users/me/email/verify', { cookies, body: { code } });
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({ message: 'Success', channel: 'email', value: 'moved@example.com' });
    expect(verify.body.delivery).toBeUndefined();
    await settle();
    const notice = emails.at(-1)!;
    expect(notice).toMatchObject({ to: user.email, subject: 'Acme - Your email address was changed' });
    expect(notice.text).toMatch(/http:\/\/localhost:3000\/contact-change\/report\?token=/);
    expect(verify.text).not.toContain('report?token');
  });
});
