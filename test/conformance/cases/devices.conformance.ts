/**
 * The devices page (docs/devices.md): sessions carry the coarse place of the
 * request that made them (only from the adapter's trusted `x-svc-client-geo`
 * on these calls), the sign-in method and the sign-in time; "sign out
 * everywhere else" keeps the caller's session. Black-box: HTTP only.
 */
import { describe, expect, it } from 'vitest';
import { call, emailCodeFor, expectOk, signUp, uniqueEmail } from '../client.js';

const list = async (token: string) => {
  const r = await call('GET', '/sessions', { token });
  expectOk(r);
  return r.body.sessions as Record<string, any>[];
};

/** Signs `email` in with an emailed code; the verify carries `headers`. */
async function signInWith(email: string, headers: Record<string, string>) {
  const { token, code, device } = await emailCodeFor(email);
  const r = await call('POST', '/otp/verify-login-email-otp', {
    device,
    token,
    headers,
    body: { verificationToken: code },
  });
  expectOk(r);
  return r.body as { token: string; refreshToken: string; sessionId: string };
}

describe('devices: session fields', () => {
  it('lists place, authMethod and signedInAt; the trusted place of the sign-in is stored', async () => {
    const email = uniqueEmail('devices');
    await signUp(email);
    const s = await signInWith(email, { 'x-svc-client-geo': 'Paris, FR' });
    const row = (await list(s.token)).find((x) => x.id === s.sessionId)!;
    expect(row).toMatchObject({ current: true, place: 'Paris, FR', authMethod: 'email_otp' });
    expect(Date.parse(row.signedInAt)).not.toBeNaN();
  });

  it('a refresh stores the place of the refreshing request on the successor', async () => {
    const email = uniqueEmail('devices');
    await signUp(email);
    const s = await signInWith(email, { 'x-svc-client-geo': 'Paris, FR' });
    const r = await call('POST', '/refresh', { token: s.refreshToken, headers: { 'x-svc-client-geo': 'Berlin, DE' } });
    expectOk(r);
    const row = (await list(r.body.token)).find((x) => x.id === r.body.sessionId)!;
    expect(row).toMatchObject({ place: 'Berlin, DE', authMethod: 'email_otp' });
  });

  it('stores no place from a label with markup, or from an edge header the operator did not name', async () => {
    const email = uniqueEmail('devices');
    await signUp(email);
    const s = await signInWith(email, { 'x-svc-client-geo': '<b>Paris</b>', 'cf-ipcountry': 'FR' });
    expect((await list(s.token)).find((x) => x.id === s.sessionId)!.place).toBeNull();
  });

  it('ignores x-svc-client-geo without a valid service token', async () => {
    const email = uniqueEmail('devices');
    await signUp(email);
    const s = await signInWith(email, { 'x-svc-service-token': 'Bearer not-a-token', 'x-svc-client-geo': 'Nowhere' });
    // A direct call may still be placed by the platform (Workers' request.cf), never by the header.
    expect((await list(s.token)).find((x) => x.id === s.sessionId)!.place).not.toBe('Nowhere');
  });
});

describe('devices: sign out everywhere else', () => {
  it('DELETE /sessions revokes the others and keeps the current session', async () => {
    const email = uniqueEmail('devices');
    const first = await signUp(email);
    const second = await signInWith(email, {});
    const third = await signInWith(email, {});
    const r = await call('DELETE', '/sessions', { token: second.token });
    expectOk(r);
    expect(r.body).toEqual({ message: 'Success', revokedSessions: 2 });
    expect((await list(second.token)).map((x) => x.id)).toEqual([second.sessionId]);
    for (const gone of [first, third]) expect((await call('GET', '/sessions', { token: gone.token })).status).toBe(401);
  });

  it('DELETE /sessions/:id revokes one session; another user gets 404', async () => {
    const email = uniqueEmail('devices');
    const first = await signUp(email);
    const second = await signInWith(email, {});
    const stranger = await signUp();
    expect((await call('DELETE', `/sessions/${first.sessionId}`, { token: stranger.token })).status).toBe(404);
    expectOk(await call('DELETE', `/sessions/${first.sessionId}`, { token: second.token }));
    expect((await list(second.token)).map((x) => x.id)).toEqual([second.sessionId]);
  });
});
