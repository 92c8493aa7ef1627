/**
 * The last-credential rule is checked and applied in one statement (contract
 * §3.10): two concurrent deletions of a user's only two passkeys under a
 * passkey-only policy can never both succeed.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { credentials } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';
import { assertWith, registerPasskey } from '../../helpers/passkeys.js';

describe('DELETE /users/credentials under concurrency', () => {
  it('two concurrent deletions of the last two passkeys: one 200, one 409 last_credential, one passkey left', async () => {
    const t = await makeApi({ env: { LOGIN_METHODS: 'passkey' } });
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const a = await registerPasskey(t, token);
    expect((await assertWith(t, '/step-up/webauthn', token, a.authenticator)).finish.status).toBe(200);
    const b = await registerPasskey(t, token);
    expect(b.finish.status).toBe(200);

    const results = await Promise.all(
      [a, b].map((p) => t.call('DELETE', '/users/credentials', { token, body: { id: p.authenticator.id } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 409)!.body.error).toBe('last_credential');
    expect(await t.api.deps.db.select().from(credentials).where(eq(credentials.userId, user.id))).toHaveLength(1);
  });
});
