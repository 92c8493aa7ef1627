import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, credentials, users } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';
import { assertWith, registerPasskey } from '../../helpers/passkeys.js';

describe('passkey management under /users/credentials (contract §3.10)', () => {
  it('renames a credential and records credential_updated', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const { authenticator } = await registerPasskey(t, token);
    const res = await t.call('POST', '/users/credentials', {
      token,
      body: { id: authenticator.id, friendlyName: 'Work key', deviceInfo: 'YubiKey 5' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      message: 'Credential updated',
      credential: { id: authenticator.id, friendlyName: 'Work key', deviceInfo: 'YubiKey 5' },
    });
    const cleared = await t.call('POST', '/users/credentials', {
      token,
      body: { id: authenticator.id, friendlyName: null },
    });
    expect(cleared.body.credential).toMatchObject({ friendlyName: null, deviceInfo: 'YubiKey 5' });
    expect(await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'credential_updated'))).toHaveLength(
      2,
    );
    const tooLong = await t.call('POST', '/users/credentials', {
      token,
      body: { id: authenticator.id, friendlyName: 'x'.repeat(129) },
    });
    expect(tooLong.status).toBe(400);
  });

  it("answers 404 for another user's credential (rename and delete)", async () => {
    const t = await makeApi();
    const owner = await createUser(t);
    const { authenticator } = await registerPasskey(t, (await signIn(t, owner)).token);
    const { token } = await signIn(t, await createUser(t));
    const rename = await t.call('POST', '/users/credentials', {
      token,
      body: { id: authenticator.id, friendlyName: 'mine' },
    });
    expect(rename.status).toBe(404);
    expect(rename.body).toEqual({ error: 'not_found', message: 'Credential not found' });
    const del = await t.call('DELETE', '/users/credentials', { token, body: { id: authenticator.id } });
    expect(del.status).toBe(404);
    expect(await t.api.deps.db.select().from(credentials)).toHaveLength(1);
  });

  it('refuses to delete the last passkey when no other login method remains (409 last_credential)', async () => {
    const t = await makeApi({ env: { LOGIN_METHODS: 'passkey,phone_otp' } });
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const { authenticator } = await registerPasskey(t, token);
    await assertWith(t, '/step-up/webauthn', token, authenticator);
    const res = await t.call('DELETE', '/users/credentials', { token, body: { id: authenticator.id } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'last_credential', message: 'Cannot remove the last sign-in method' });
    expect(await t.api.deps.db.select().from(credentials)).toHaveLength(1);

    // A verified phone is another way in under this policy: the deletion is allowed.
    await t.api.deps.db.update(users).set({ phone: '+14155550100', phoneVerified: true }).where(eq(users.id, user.id));
    const ok = await t.call('DELETE', '/users/credentials', { token, body: { id: authenticator.id } });
    expect(ok.status).toBe(200);
    expect(await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'credential_deleted'))).toHaveLength(
      1,
    );
  });

  it('deletes one of two passkeys under a passkey-only policy, but not the second', async () => {
    const t = await makeApi({ env: { LOGIN_METHODS: 'passkey' } });
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const a = await registerPasskey(t, token);
    await assertWith(t, '/step-up/webauthn', token, a.authenticator);
    const b = await registerPasskey(t, token);
    expect(b.finish.status).toBe(200);
    expect((await t.call('DELETE', '/users/credentials', { token, body: { id: a.authenticator.id } })).status).toBe(
      200,
    );
    const last = await t.call('DELETE', '/users/credentials', { token, body: { id: b.authenticator.id } });
    expect(last.status).toBe(409);
  });

  it('allows deleting the only passkey when magic_link remains', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const { authenticator } = await registerPasskey(t, token);
    await assertWith(t, '/step-up/webauthn', token, authenticator);
    expect((await t.call('DELETE', '/users/credentials', { token, body: { id: authenticator.id } })).status).toBe(200);
    expect(await t.api.deps.db.select().from(credentials)).toHaveLength(0);
  });
});
