/**
 * Provider endpoints an admin sets are addresses the API fetches (token
 * exchange, userinfo, JWKS) and the browser is sent to. In production they
 * may not name this machine or a private network (issue 29, secret-bearing
 * settings: docs/security.md): an `admin:write` user must not turn the API
 * into a client of internal services or of the cloud metadata endpoint.
 */
import { describe, expect, it } from 'vitest';
import { isInternalHost } from '../../../src/config/internal-host.js';
import { oauthProviderSchema } from '../../../src/config/oauth-provider.js';

const base = {
  id: 'acme',
  name: 'Acme',
  clientId: 'c',
  clientSecretEnv: 'ACME_CLIENT_SECRET',
  authorizationUrl: 'https://idp.example/a',
  tokenUrl: 'https://idp.example/t',
  userInfoUrl: 'https://idp.example/u',
};
const production = oauthProviderSchema(true);
const dev = oauthProviderSchema(false);

const INTERNAL = [
  'https://localhost/t',
  'https://api.localhost/t',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://printer.local/t',
  'https://127.0.0.1/t',
  'https://127.1/t',
  'https://2130706433/t',
  'https://0x7f000001/t',
  'https://0.0.0.0/t',
  'https://10.1.2.3/t',
  'https://172.16.0.1/t',
  'https://172.31.255.255/t',
  'https://192.168.1.1/t',
  'https://169.254.169.254/latest/meta-data/',
  'https://100.64.0.1/t',
  'https://[::1]/t',
  'https://[::]/t',
  'https://[fd00::1]/t',
  'https://[fe80::1]/t',
  'https://[::ffff:127.0.0.1]/t',
  'https://[::ffff:a9fe:a9fe]/t',
];
const PUBLIC = ['https://idp.example/t', 'https://8.8.8.8/t', 'https://172.32.0.1/t', 'https://[2001:db8::1]/t', 'https://accounts.google.com/o/oauth2/token'];

describe('OAuth provider endpoints may not name an internal host in production', () => {
  for (const field of ['authorizationUrl', 'tokenUrl', 'userInfoUrl', 'issuer', 'jwksUri'] as const) {
    it(`${field}: loopback, private, link-local and internal names are refused`, () => {
      for (const url of INTERNAL) {
        const r = production.safeParse({ ...base, [field]: url });
        expect(r.success, `${field} = ${url}`).toBe(false);
        if (!r.success) expect(JSON.stringify(r.error.issues)).toContain('internal');
      }
    });
  }

  it('public hosts pass in production', () => {
    for (const url of PUBLIC) expect(production.safeParse({ ...base, tokenUrl: url }).success, url).toBe(true);
  });

  it('outside production a local test provider is allowed', () => {
    expect(dev.safeParse({ ...base, tokenUrl: 'http://127.0.0.1:9000/t' }).success).toBe(true);
    expect(dev.safeParse({ ...base, tokenUrl: 'http://localhost:9000/t' }).success).toBe(true);
  });

  it('isInternalHost reads WHATWG-normalised host names', () => {
    for (const url of INTERNAL) expect(isInternalHost(new URL(url).hostname), url).toBe(true);
    for (const url of PUBLIC) expect(isInternalHost(new URL(url).hostname), url).toBe(false);
  });
});
