/**
 * Bearer token storage failures against the real adapter + API: they surface
 * as `storage_failed` and never lose the tokens the client holds, so no
 * rotated refresh token is thrown away (which would later look like reuse).
 */
import { describe, expect, it } from 'vitest';
import { flakyStorage, nativeApp, refreshCalls, signUp } from './helpers.js';

describe('client: storage failures (bearer transport)', () => {
  it('a failing write on refresh surfaces, keeps the new tokens in memory, and writes them on the next call', async () => {
    const app = await nativeApp();
    const s = flakyStorage();
    const client = app.client(s.storage);
    await signUp(app, client, 'ken@example.com');
    const signedIn = JSON.parse((await s.read())!);
    app.h.t.clock.advance(16 * 60_000);
    s.fail.set = true;
    await expect(client.me()).rejects.toMatchObject({ code: 'storage_failed', status: 0 });
    expect(refreshCalls(app)).toBe(1);
    expect(JSON.parse((await s.read())!).refreshToken).toBe(signedIn.refreshToken); // storage still has the old record
    s.fail.set = false;
    const me = await client.me(); // memory holds the rotated pair: no second refresh (that would be reuse)
    expect(me.user.email).toBe('ken@example.com');
    expect(refreshCalls(app)).toBe(1);
    const stored = JSON.parse((await s.read())!);
    expect(stored.refreshToken).not.toBe(signedIn.refreshToken);
    // A restart on that storage continues the session with the rotated token.
    app.h.t.clock.advance(16 * 60_000);
    const restarted = app.client(s.storage);
    expect((await restarted.me()).user.email).toBe('ken@example.com');
    expect(restarted.session.get().status).toBe('signed-in');
  });

  it('a failing read surfaces and deletes nothing; the next call reads again', async () => {
    const app = await nativeApp();
    const s = flakyStorage();
    await signUp(app, app.client(s.storage), 'dennis@example.com');
    const record = await s.read();
    const restarted = app.client(s.storage);
    s.fail.get = true;
    await expect(restarted.me()).rejects.toMatchObject({ code: 'storage_failed' });
    await expect(restarted.restore()).rejects.toMatchObject({ code: 'storage_failed' });
    expect(await s.read()).toBe(record);
    s.fail.get = false;
    expect((await restarted.me()).user.email).toBe('dennis@example.com');
  });

  it('a failing write at sign-in surfaces but the session is usable', async () => {
    const app = await nativeApp();
    const s = flakyStorage();
    const client = app.client(s.storage);
    s.fail.set = true;
    await expect(signUp(app, client, 'margaret@example.com')).rejects.toMatchObject({ code: 'storage_failed' });
    expect(client.session.get().status).toBe('signed-in');
    await expect(client.me()).rejects.toMatchObject({ code: 'storage_failed' }); // still cannot persist: said loudly
    s.fail.set = false;
    expect((await client.me()).user.email).toBe('margaret@example.com');
    expect(JSON.parse((await s.read())!).user.email).toBe('margaret@example.com');
  });

  it('a failing delete at logout still signs out in memory and reports the failure', async () => {
    const app = await nativeApp();
    const s = flakyStorage();
    const client = app.client(s.storage);
    await signUp(app, client, 'alan@example.com');
    s.fail.delete = true;
    await expect(client.logout()).rejects.toMatchObject({ code: 'storage_failed' });
    expect(client.session.get()).toMatchObject({ status: 'signed-out', reason: 'logout' });
    await expect(client.me()).rejects.toMatchObject({ code: 'signed_out' });
  });
});
