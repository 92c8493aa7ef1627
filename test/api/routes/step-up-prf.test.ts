/**
 * Passkey step-up with PRF (spec: "verify with passkey PRF"; contract §3.11):
 * `POST /step-up/webauthn/start {prf: {salt, secondSalt?}}` asks the
 * authenticator to evaluate PRF with those salts, offers only PRF-capable
 * passkeys, and the finish (whose PRF output the client keeps to itself)
 * makes the session fresh. A user whose passkeys cannot do PRF gets
 * `step_up_unavailable`, and an output sent to the API is refused.
 */
import { describe, expect, it } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { assertWith, registerPasskey } from '../../helpers/passkeys.js';
import { SoftwareAuthenticator } from '../../helpers/software-authenticator.js';

const SALT = 'c2FsdC1mb3ItdGhlLXZhdWx0LWtleS0wMDAwMDAwMDA'; // 32 bytes
const SECOND = 'c2Vjb25kLXNhbHQtZm9yLXJvdGF0aW9uLTAwMDAwMDA';

/** A PRF-capable passkey (registered with requirePrf and `prf.enabled`). */
async function prfPasskey(t: TestApi, token: string) {
  const start = await t.call('POST', '/webauthn/register/start', { token, body: { requirePrf: true } });
  const authenticator = await SoftwareAuthenticator.create();
  const finish = await t.call('POST', '/webauthn/register/finish', {
    token,
    body: {
      attestationResponse: authenticator.register(start.body, { clientExtensionResults: { prf: { enabled: true } } }),
    },
  });
  expect(finish.body.credential.prfCapable).toBe(true);
  return { authenticator, credentialId: finish.body.credential.id as string };
}

describe('passkey step-up with PRF', () => {
  it('evaluates the salts, offers only PRF-capable passkeys, and the assertion makes the session fresh', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const plain = await registerPasskey(t, token); // not PRF-capable
    expect(plain.finish.status).toBe(200);
    // The second registration needs a fresh step-up (the user has a factor now).
    expect((await assertWith(t, '/step-up/webauthn', token, plain.authenticator)).finish.status).toBe(200);
    const { authenticator, credentialId } = await prfPasskey(t, token);
    t.clock.advance(301_000);
    expect((await t.call('GET', '/step-up/status', { token })).body.fresh).toBe(false);

    const { start, finish } = await assertWith(
      t,
      '/step-up/webauthn',
      token,
      authenticator,
      {},
      {
        prf: { salt: SALT, secondSalt: SECOND },
      },
    );
    expect(start.status).toBe(200);
    expect(start.body.extensions).toEqual({ prf: { eval: { first: SALT, second: SECOND } } });
    expect(start.body.allowCredentials.map((c: { id: string }) => c.id)).toEqual([credentialId]);
    expect(start.body.userVerification).toBe('required');
    expect(finish.status).toBe(200);
    expect(finish.body).toMatchObject({ fresh: true, method: 'webauthn', maxAgeSeconds: 300 });
    expect((await t.call('GET', '/step-up/status', { token })).body.fresh).toBe(true);
  });

  it('answers step_up_unavailable when no passkey can do PRF, and refuses a PRF output sent to the API', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const plain = await registerPasskey(t, token);
    const refused = await t.call('POST', '/step-up/webauthn/start', { token, body: { prf: { salt: SALT } } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('step_up_unavailable');

    expect((await assertWith(t, '/step-up/webauthn', token, plain.authenticator)).finish.status).toBe(200);
    const { authenticator } = await prfPasskey(t, token);
    t.clock.advance(301_000);
    const leaked = await assertWith(
      t,
      '/step-up/webauthn',
      token,
      authenticator,
      { clientExtensionResults: { prf: { results: { first: 'AAAA' } } } },
      { prf: { salt: SALT } },
    );
    expect(leaked.finish.status).toBe(400);
    expect(leaked.finish.body.error).toBe('prf_output_not_allowed');
    expect((await t.call('GET', '/step-up/status', { token })).body.fresh).toBe(false);
  });
});
