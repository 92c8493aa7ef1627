import { describe, expect, it } from 'vitest';
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
  it('applies the defaults of the spec table', () => {
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
    expect(ok({ clientSecretEnv: 'A' })).toBe(false); // issue 29: *_CLIENT_SECRET or allowlisted only
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
