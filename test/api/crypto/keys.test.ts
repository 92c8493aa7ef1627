import { generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { DEV_KID, generateRsaPem } from '../../../src/crypto/keys.js';
import { createAuthApi } from '../../../src/index.js';
import { createLogger } from '../../../src/log.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { baseEnv, makeApi, prepareClient } from '../../helpers/make-app.js';

type Pem = { privatePem: string; publicPem: string };
let k1: Pem;
let k2: Pem;

beforeAll(async () => {
  [k1, k2] = await Promise.all([generateRsaPem(), generateRsaPem()]);
});

function productionEnv(over: Record<string, string | undefined> = {}) {
  return {
    ...baseEnv,
    NODE_ENV: 'production',
    ISSUER: 'https://auth.example.com',
    OAUTH_STATE_SECRET: 'o'.repeat(40),
    SVC_JWKS_ACTIVE_KID: 'k1',
    SVC_JWKS_KEY_k1_PRIVATE: k1.privatePem,
    SVC_JWKS_PUBLIC_KEYS: JSON.stringify({
      keys: [
        { kid: 'k1', pem: k1.publicPem },
        { kid: 'k2', pem: k2.publicPem },
      ],
    }),
    ...over,
  };
}

async function bootFails(env: Record<string, string | undefined>, name: string) {
  const err = await createAuthApi({ env, client: await prepareClient(), logger: createLogger(() => {}) }).catch(
    (e) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  expect(err.key).toBe(name);
  expect(err.message).toContain(name);
  expect(err.message).not.toContain('PRIVATE KEY-----');
}

describe('production signing keys (contract §1.6, §1.7)', () => {
  it('boots with agreeing keys, publishes every public key and signs with the active kid', async () => {
    const t = await makeApi({ env: productionEnv() });
    const jwks = await t.call('GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300');
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual(['k1', 'k2']);
    for (const k of jwks.body.keys) {
      expect(Object.keys(k).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
      expect(k).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256' });
    }
    const user = await createUser(t);
    const session = await signIn(t, user);
    expect(decodeProtectedHeader(session.token)).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'k1' });
    expect((await t.call('GET', '/users/me', { token: session.token })).status).toBe(200);
  });

  it('accepts PEMs written with literal \\n', async () => {
    const t = await makeApi({
      env: productionEnv({
        SVC_JWKS_KEY_k1_PRIVATE: k1.privatePem.replace(/\n/g, '\\n'),
        SVC_JWKS_PUBLIC_KEYS: JSON.stringify({ keys: [{ kid: 'k1', pem: k1.publicPem.replace(/\n/g, '\\n') }] }),
      }),
    });
    expect((await t.call('GET', '/.well-known/jwks.json')).body.keys).toHaveLength(1);
  });

  it('fails startup when the active kid is not published', async () => {
    await bootFails(
      productionEnv({ SVC_JWKS_ACTIVE_KID: 'k3', SVC_JWKS_KEY_k3_PRIVATE: k1.privatePem }),
      'SVC_JWKS_ACTIVE_KID',
    );
  });

  it('fails startup when the private key does not parse', async () => {
    await bootFails(
      productionEnv({ SVC_JWKS_KEY_k1_PRIVATE: '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----' }),
      'SVC_JWKS_KEY_k1_PRIVATE',
    );
  });

  it('fails startup when the private key does not match the published public key', async () => {
    await bootFails(productionEnv({ SVC_JWKS_KEY_k1_PRIVATE: k2.privatePem }), 'SVC_JWKS_KEY_k1_PRIVATE');
  });

  it('fails startup on a malformed published key set', async () => {
    await bootFails(productionEnv({ SVC_JWKS_PUBLIC_KEYS: '{"keys":' }), 'SVC_JWKS_PUBLIC_KEYS');
    await bootFails(productionEnv({ SVC_JWKS_PUBLIC_KEYS: '{"keys":[{"kid":"k1"}]}' }), 'SVC_JWKS_PUBLIC_KEYS');
    await bootFails(
      productionEnv({ SVC_JWKS_PUBLIC_KEYS: JSON.stringify({ keys: [{ kid: 'k1', pem: 'garbage' }] }) }),
      'SVC_JWKS_PUBLIC_KEYS',
    );
  });

  it('fails startup on an RSA key shorter than 2048 bits', async () => {
    const weak = generateKeyPairSync('rsa', {
      modulusLength: 1024,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    await bootFails(
      productionEnv({
        SVC_JWKS_KEY_k1_PRIVATE: weak.privateKey,
        SVC_JWKS_PUBLIC_KEYS: JSON.stringify({ keys: [{ kid: 'k1', pem: weak.publicKey }] }),
      }),
      'SVC_JWKS_KEY_k1_PRIVATE',
    );
  });
});

describe('development signing key (contract §1.6)', () => {
  it('is created once, persisted and shared by every instance on the database', async () => {
    const { createClient } = await import('@libsql/client');
    const { applyMigrations } = await import('../../../src/db/migrate.js');
    const client = createClient({ url: ':memory:', intMode: 'number' });
    await applyMigrations(client);
    const quiet = createLogger(() => {});
    const a = await createAuthApi({ env: baseEnv, client, logger: quiet });
    const b = await createAuthApi({ env: baseEnv, client, logger: quiet });
    const ja = await (await a.request('/.well-known/jwks.json')).json();
    const jb = await (await b.request('/.well-known/jwks.json')).json();
    expect(ja.keys).toHaveLength(1);
    expect(ja.keys[0].kid).toBe(DEV_KID);
    expect(jb).toEqual(ja);
    const rows = await client.execute('SELECT count(*) AS n FROM signing_keys');
    expect(rows.rows[0]!['n']).toBe(1);
  });
});
