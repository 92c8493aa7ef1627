/**
 * `native_apps` system config: env seed, admin PATCH, the public
 * `GET /system-config/associations`, and the Android WebAuthn origins derived
 * from the configured signing-certificate fingerprints.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { authEvents, systemConfig } from '../../../src/db/schema.js';
import { createAuthApi } from '../../../src/index.js';
import { createLogger } from '../../../src/log.js';
import { signedIn } from '../../helpers/admin.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { baseEnv, makeApi, prepareClient } from '../../helpers/make-app.js';
import { assertWith, loginToken, registerPasskey } from '../../helpers/passkeys.js';
import { SoftwareAuthenticator } from '../../helpers/software-authenticator.js';

/** Bytes 0x00…0x1f as colon-hex; their unpadded base64url is `AAECAwQF…Hh8`. */
const FINGERPRINT = Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, '0').toUpperCase()).join(':');
const APK_ORIGIN = 'android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
const OTHER_FINGERPRINT = FINGERPRINT.replace(/^00/, 'FF');

const APPS = {
  android: [{ packageName: 'com.example.app', sha256CertFingerprints: [FINGERPRINT.toLowerCase()] }],
  apple: [
    { teamId: 'ABCDE12345', bundleId: 'com.example.app', applinksPaths: ['/auth/magic-link/*'] },
    { teamId: 'ABCDE12345', bundleId: 'com.example.watch' },
  ],
};

const quiet = createLogger(() => {}, 'error');

async function bootError(value: string): Promise<ConfigError> {
  const err = await createAuthApi({
    env: { ...baseEnv, NATIVE_APPS: value },
    client: await prepareClient(),
    logger: quiet,
  }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

describe('native_apps config', () => {
  it('defaults to no apps: the associations list only the web origins', async () => {
    const t = await makeApi({
      env: { ORIGINS: 'http://localhost:3000,https://shop.example/,android:apk-key-hash:abc' },
    });
    const res = await t.call('GET', '/system-config/associations');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.body).toEqual({ webOrigins: ['http://localhost:3000', 'https://shop.example'], android: [], apple: [] });
  });

  it('is seeded from NATIVE_APPS and published without a credential (fingerprints upper-case, app ids Team.Bundle)', async () => {
    const t = await makeApi({ env: { NATIVE_APPS: JSON.stringify(APPS) } });
    const res = await t.call('GET', '/system-config/associations');
    expect(res.body).toEqual({
      webOrigins: ['http://localhost:3000'],
      android: [{ packageName: 'com.example.app', sha256CertFingerprints: [FINGERPRINT] }],
      apple: [
        { appId: 'ABCDE12345.com.example.app', applinksPaths: ['/auth/magic-link/*'] },
        { appId: 'ABCDE12345.com.example.watch', applinksPaths: [] },
      ],
    });
    const admin = await signedIn(t, ['admin:read']);
    expect((await t.call('GET', '/system-config/admin', { token: admin.token })).body.native_apps).toEqual(APPS);
  });

  it.each([
    ['not json', 'not json'],
    ['an array', '[]'],
    [
      'a 31-byte fingerprint',
      JSON.stringify({
        android: [{ packageName: 'com.example.app', sha256CertFingerprints: [FINGERPRINT.slice(3)] }],
        apple: [],
      }),
    ],
    [
      'a base64 fingerprint',
      JSON.stringify({
        android: [
          { packageName: 'com.example.app', sha256CertFingerprints: ['AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8'] },
        ],
        apple: [],
      }),
    ],
    [
      'no fingerprint',
      JSON.stringify({ android: [{ packageName: 'com.example.app', sha256CertFingerprints: [] }], apple: [] }),
    ],
    [
      'a one-segment package',
      JSON.stringify({ android: [{ packageName: 'app', sha256CertFingerprints: [FINGERPRINT] }], apple: [] }),
    ],
    ['a short team id', JSON.stringify({ android: [], apple: [{ teamId: 'ABC', bundleId: 'com.example.app' }] })],
    [
      'an applinks path without /',
      JSON.stringify({
        android: [],
        apple: [{ teamId: 'ABCDE12345', bundleId: 'com.example.app', applinksPaths: ['auth/*'] }],
      }),
    ],
    ['an unknown field', JSON.stringify({ android: [], apple: [], windows: [] })],
  ])('refuses a malformed NATIVE_APPS seed (%s) at boot in one line naming the key', async (_label, value) => {
    const err = await bootError(value);
    expect(err.key).toBe('NATIVE_APPS');
    expect(err.message).toContain('native_apps');
    expect(err.message).not.toContain('\n');
  });

  it('PATCH stores a valid value and the associations follow at once', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:write']);
    const res = await t.call('PATCH', '/system-config/admin', { token: admin.token, body: { native_apps: APPS } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, updatedKeys: ['native_apps'] });
    expect((await t.call('GET', '/system-config/associations')).body.android).toEqual([
      { packageName: 'com.example.app', sha256CertFingerprints: [FINGERPRINT] },
    ]);
  });

  it.each([
    [
      'a bad fingerprint',
      { android: [{ packageName: 'com.example.app', sha256CertFingerprints: ['AB:CD'] }], apple: [] },
    ],
    ['a duplicate package', { android: [APPS.android[0], APPS.android[0]], apple: [] }],
    ['a missing list', { android: [] }],
    ['a lower-case team id', { android: [], apple: [{ teamId: 'abcde12345', bundleId: 'com.example.app' }] }],
  ])('PATCH refuses %s with 400 invalid_request and changes nothing', async (_label, value) => {
    const t = await makeApi({ env: { NATIVE_APPS: JSON.stringify(APPS) } });
    const admin = await signedIn(t, ['admin:write']);
    const before = await t.api.deps.db.select().from(systemConfig).where(eq(systemConfig.key, 'native_apps'));
    const res = await t.call('PATCH', '/system-config/admin', {
      token: admin.token,
      body: { native_apps: value, app_name: 'Changed' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.details.issues[0].path[0]).toBe('native_apps');
    expect(await t.api.deps.db.select().from(systemConfig).where(eq(systemConfig.key, 'native_apps'))).toEqual(before);
    expect((await t.api.deps.config.get()).app_name).toBe('svc test');
    const refusals = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'system_config_error'));
    expect(refusals).toHaveLength(1);
  });
});

describe('WebAuthn origins derived from native_apps', () => {
  it('accepts the apk-key-hash origin of a configured certificate for registration and login without listing it in origins', async () => {
    const t = await makeApi({ env: { NATIVE_APPS: JSON.stringify(APPS) } });
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const android = await SoftwareAuthenticator.create({ origin: APK_ORIGIN });
    expect((await registerPasskey(t, token, { authenticator: android })).finish.status).toBe(200);
    const login = await assertWith(t, '/webauthn/login', await loginToken(t, user.id), android);
    expect(login.finish.status).toBe(200);
  });

  it('refuses the origin of a certificate that is not configured, and stops accepting one once it is removed', async () => {
    const t = await makeApi({ env: { NATIVE_APPS: JSON.stringify(APPS) } });
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const foreignOrigin = `android:apk-key-hash:${btoa(
      String.fromCharCode(...OTHER_FINGERPRINT.split(':').map((h) => parseInt(h, 16))),
    )
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '')}`;
    const foreign = await SoftwareAuthenticator.create({ origin: foreignOrigin });
    expect((await registerPasskey(t, token, { authenticator: foreign })).finish.status).toBe(403);

    const android = await SoftwareAuthenticator.create({ origin: APK_ORIGIN });
    expect((await registerPasskey(t, token, { authenticator: android })).finish.status).toBe(200);
    const admin = await signedIn(t, ['admin:write']);
    expect(
      (
        await t.call('PATCH', '/system-config/admin', {
          token: admin.token,
          body: { native_apps: { android: [], apple: [] } },
        })
      ).status,
    ).toBe(200);
    const login = await assertWith(t, '/webauthn/login', await loginToken(t, user.id), android);
    expect(login.finish.status).toBe(401);
  });
});

describe('WebAuthn related origins (L3 §5.11)', () => {
  it('accepts a second listed web origin for the same RP ID and refuses an origin outside the list, at registration and login', async () => {
    const t = await makeApi({ env: { ORIGINS: 'http://localhost:3000,https://shop.example' } });
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const related = await SoftwareAuthenticator.create({ origin: 'https://shop.example' });
    expect((await registerPasskey(t, token, { authenticator: related })).finish.status).toBe(200);
    expect((await assertWith(t, '/webauthn/login', await loginToken(t, user.id), related)).finish.status).toBe(200);

    const outsider = await SoftwareAuthenticator.create({ origin: 'https://shop.example.evil' });
    await assertWith(t, '/step-up/webauthn', token, related);
    const refused = await registerPasskey(t, token, { authenticator: outsider });
    expect(refused.finish.status).toBe(403);
    expect(refused.finish.body.error).toBe('webauthn_registration_failed');
    const login = await assertWith(t, '/webauthn/login', await loginToken(t, user.id), related, {
      origin: 'https://shop.example.evil',
    });
    expect(login.finish.status).toBe(401);
    expect(login.finish.body.error).toBe('authentication_failed');
  });
});

describe('native_apps stored row', () => {
  it('refuses to boot on an invalid stored value, in one line naming the key', async () => {
    const client = await prepareClient();
    const first = await createAuthApi({ env: baseEnv, client, logger: quiet });
    await first.deps.db
      .update(systemConfig)
      .set({ value: { android: [{ packageName: 'x', sha256CertFingerprints: [] }], apple: [] } })
      .where(eq(systemConfig.key, 'native_apps'));
    const err = await createAuthApi({ env: baseEnv, client, logger: quiet }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe('native_apps');
    expect((err as ConfigError).message).not.toContain('\n');
  });
});
