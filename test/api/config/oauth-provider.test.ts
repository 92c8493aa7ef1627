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
const dev = oauthProviderSchema(false);
const ok = (over: Record<string, unknown>) => dev.safeParse({ ...base, ...over }).success;

describe('OAuthProviderConfig (contract §6.1)', () => {
  it('applies the defaults of the contract table (§6.1)', () => {
    expect(dev.parse(base)).toEqual({
      ...base,
      enabled: true,
      scopes: [],
      redirectUris: [],
      subjectJsonPath: 'sub',
      emailJsonPath: 'email',
      emailVerifiedJsonPath: 'email_verified',
      allowSignup: true,
      accountLinking: 'email',
      requireEmailVerified: false,
      nativeClientIds: [],
    });
  });

  it('validates the native ID-token fields: issuer and jwksUri are URLs, nativeClientIds non-empty strings', () => {
    expect(ok({ issuer: 'https://appleid.apple.com', nativeClientIds: ['com.example.ios'] })).toBe(true);
    expect(ok({ issuer: 'appleid.apple.com' })).toBe(false);
    expect(ok({ jwksUri: 'https://appleid.apple.com/auth/keys' })).toBe(true);
    expect(ok({ jwksUri: 'ftp://idp.example/keys' })).toBe(false);
    expect(ok({ nativeClientIds: [''] })).toBe(false);
    expect(ok({ nativeClientIds: 'com.example.ios' })).toBe(false);
    expect(oauthProviderSchema(true).safeParse({ ...base, issuer: 'http://idp.example' }).success).toBe(false);
  });

  it('validates ids, names and the secret env name', () => {
    expect(ok({ id: 'a' })).toBe(false);
    expect(ok({ id: 'Acme' })).toBe(false);
    expect(ok({ id: 'a'.repeat(41) })).toBe(false);
    expect(ok({ id: 'my-idp-2' })).toBe(true);
    expect(ok({ name: '' })).toBe(false);
    expect(ok({ name: 'x'.repeat(81) })).toBe(false);
    expect(ok({ clientId: '' })).toBe(false);
    expect(ok({ clientSecretEnv: 'acme_secret' })).toBe(false);
    expect(ok({ clientSecretEnv: '1ACME' })).toBe(false);
    // *_CLIENT_SECRET or allowlisted only, so no service secret can be named
    expect(ok({ clientSecretEnv: 'A' })).toBe(false);
    expect(ok({ clientSecretEnv: 'A_CLIENT_SECRET' })).toBe(true);
    expect(ok({ clientSecretEnv: 'API_SERVICE_TOKEN' })).toBe(false);
  });

  it('validates URLs, redirect URIs, JSON paths and enums', () => {
    expect(ok({ tokenUrl: 'idp.example/t' })).toBe(false);
    expect(ok({ tokenUrl: 'http://127.0.0.1:9000/token' })).toBe(true);
    expect(ok({ redirectUri: '/relative' })).toBe(false);
    expect(ok({ redirectUri: 'https://app.example/cb#frag' })).toBe(false);
    expect(ok({ redirectUris: ['https://app.example/cb', 'com.example.app:/oauth'] })).toBe(true);
    expect(ok({ redirectUris: ['javascript:alert(1)'] })).toBe(false);
    expect(ok({ emailJsonPath: 'data.attributes.email' })).toBe(true);
    expect(ok({ emailJsonPath: 'data..email' })).toBe(false);
    expect(ok({ accountLinking: 'auto' })).toBe(false);
    expect(ok({ scopes: ['openid email'] })).toBe(false);
    expect(ok({ pkce: false })).toBe(true);
  });

  it('is strict: an unknown or misspelt field (or a secret value) makes the provider invalid', () => {
    expect(ok({ allowSignUp: false })).toBe(false);
    expect(ok({ clientSecret: 'shh' })).toBe(false);
  });
});

/**
 * Provider endpoints an admin sets are addresses the API fetches (token
 * exchange, userinfo, JWKS) and the browser is sent to. In production they
 * may not name this machine or a private network (secret-bearing
 * settings: docs/security.md): an `admin:write` user must not turn the API
 * into a client of internal services or of the cloud metadata endpoint.
 */
const production = oauthProviderSchema(true);

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
const PUBLIC = [
  'https://idp.example/t',
  'https://8.8.8.8/t',
  'https://172.32.0.1/t',
  'https://[2001:db8::1]/t',
  'https://accounts.google.com/o/oauth2/token',
];

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
