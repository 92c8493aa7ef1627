import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { parseEnv } from '../../../src/config/env.js';

const S = (c: string) => c.repeat(40);
const production = {
  NODE_ENV: 'production',
  ISSUER: 'https://auth.example.com',
  OAUTH_STATE_SECRET: S('o'),
  SVC_JWKS_ACTIVE_KID: 'k1',
  SVC_JWKS_KEY_k1_PRIVATE: 'pem',
  SVC_JWKS_PUBLIC_KEYS: '{"keys":[]}',
};

describe('TOTP encryption key source (contract §1.1, §1.8)', () => {
  it('refuses to start in production without API_SERVICE_TOKEN, so the TOTP key always has a stable source', () => {
    expect(() => parseEnv({ ...production, TOTP_SECRET_ENCRYPTION_KEY: S('t') })).toThrow(ConfigError);
    expect(() => parseEnv({ ...production, TOTP_SECRET_ENCRYPTION_KEY: S('t') })).toThrow(/API_SERVICE_TOKEN/);
  });

  it('uses TOTP_SECRET_ENCRYPTION_KEY when set and falls back to API_SERVICE_TOKEN', () => {
    expect(
      parseEnv({ ...production, API_SERVICE_TOKEN: S('a'), TOTP_SECRET_ENCRYPTION_KEY: S('t') }).secrets
        ?.totpEncryption,
    ).toBe(S('t'));
    expect(parseEnv({ ...production, API_SERVICE_TOKEN: S('a') }).secrets?.totpEncryption).toBe(S('a'));
  });

  it('rejects a TOTP key shorter than 32 characters, naming the variable', () => {
    expect(() => parseEnv({ ...production, API_SERVICE_TOKEN: S('a'), TOTP_SECRET_ENCRYPTION_KEY: 'short' })).toThrow(
      /TOTP_SECRET_ENCRYPTION_KEY/,
    );
  });
});
