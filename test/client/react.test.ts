/** `svc-auth/react`: SvcProvider, useSvcClient and useSession rendered with react-dom/server. */
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createSvcClient, type SvcClient } from '../../client/index.js';
import { SvcProvider, useSession, useSvcClient } from '../../client/react.js';

function Status() {
  const session = useSession();
  const client = useSvcClient();
  return createElement(
    'p',
    null,
    `${client.transport}:${session.status}:${session.status === 'signed-in' ? `${session.user.email}@${session.activeOrganizationId}` : '-'}`,
  );
}

const render = (client: SvcClient) => renderToString(createElement(SvcProvider, { client }, createElement(Status)));

const envelope = {
  message: 'Success',
  sub: 'u1',
  sessionId: 's1',
  organizationId: 'org-1',
  roles: ['user'],
  email: 'ada@example.com',
  phone: null,
  ttl: 900,
  refreshTtl: 86400,
};

describe('svc-auth/react', () => {
  it('renders the session of the provided client and follows its changes', async () => {
    let answer = () => new Response(JSON.stringify(envelope), { status: 200 });
    const client = createSvcClient({ baseUrl: 'http://app.test/auth', fetch: async () => answer() });
    expect(render(client)).toContain('cookie:unknown:-');
    await client.verifyLoginEmailOtp({ verificationToken: '123456' });
    expect(render(client)).toContain('cookie:signed-in:ada@example.com@org-1');
    answer = () => new Response(null, { status: 204 });
    await client.logout();
    expect(render(client)).toContain('cookie:signed-out:-');
  });

  it('without a provider, the hooks fail with a clear message', () => {
    expect(() => renderToString(createElement(Status))).toThrow(/SvcProvider/);
  });
});
