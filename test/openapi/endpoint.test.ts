/**
 * `GET /openapi.json`: served outside production, absent in
 * production unless `OPENAPI_ENABLED=true`, and the variable is validated.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { parseEnv } from '../../src/config/env.js';
import { generateRsaPem } from '../../src/crypto/keys.js';
import { buildApiDocument } from '../../src/openapi/document.js';
import { baseEnv, makeApi } from '../helpers/make-app.js';

async function productionEnv(over: Record<string, string> = {}) {
  const key = await generateRsaPem();
  return {
    ...baseEnv,
    NODE_ENV: 'production',
    ISSUER: 'https://auth.example.com',
    OAUTH_STATE_SECRET: 'o'.repeat(40),
    SVC_JWKS_ACTIVE_KID: 'k1',
    SVC_JWKS_KEY_k1_PRIVATE: key.privatePem,
    SVC_JWKS_PUBLIC_KEYS: JSON.stringify({ keys: [{ kid: 'k1', pem: key.publicPem }] }),
    ...over,
  };
}

describe('GET /openapi.json', () => {
  it('serves the generated document outside production, as JSON and not cacheable', async () => {
    const t = await makeApi();
    const res = await t.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual(buildApiDocument());
  });

  it('is not found when OPENAPI_ENABLED=false', async () => {
    const t = await makeApi({ env: { OPENAPI_ENABLED: 'false' } });
    const res = await t.call('GET', '/openapi.json');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });

  it('is off in production by default and on with OPENAPI_ENABLED=true', async () => {
    const off = await makeApi({ env: await productionEnv() });
    expect((await off.call('GET', '/openapi.json')).status).toBe(404);
    const on = await makeApi({ env: await productionEnv({ OPENAPI_ENABLED: 'true' }) });
    expect((await on.call('GET', '/openapi.json')).status).toBe(200);
  });

  it('refuses any other OPENAPI_ENABLED value, naming the variable', () => {
    const err = (() => {
      try {
        parseEnv({ ...baseEnv, OPENAPI_ENABLED: 'yes' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain('OPENAPI_ENABLED');
  });
});
