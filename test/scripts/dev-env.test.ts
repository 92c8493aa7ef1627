import { describe, expect, it } from 'vitest';
import { devDefaults, parseDotEnv, resolveDevEnv } from '../../scripts/dev-env.js';

describe('parseDotEnv', () => {
  it('reads KEY=value lines, quotes, export prefixes and comments', () => {
    const text = [
      '# comment',
      '',
      'APP_NAME=My App',
      'export RPID=example.test',
      'ORIGINS="http://a.test,http://b.test"',
      "API_SERVICE_TOKEN='x#y'",
      'RATE_LIMIT=5 # inline comment',
      'PEM="line1\\nline2"',
      'EMPTY=',
      'not a line',
    ].join('\n');
    expect(parseDotEnv(text)).toEqual({
      APP_NAME: 'My App',
      RPID: 'example.test',
      ORIGINS: 'http://a.test,http://b.test',
      API_SERVICE_TOKEN: 'x#y',
      RATE_LIMIT: '5',
      PEM: 'line1\nline2',
      EMPTY: '',
    });
  });
});

describe('resolveDevEnv', () => {
  it('provides every config seed the API needs with zero configuration', () => {
    const env = resolveDevEnv({}, {});
    expect(env).toMatchObject({
      ISSUER: 'http://127.0.0.1:8787',
      DATABASE_URL: 'file:./.data/svc.db',
      RPID: 'localhost',
      ORIGINS: 'http://localhost:3000',
      PORT: '8787',
      HOST: '127.0.0.1',
    });
    for (const k of [
      'APP_NAME',
      'DEFAULT_ROLES',
      'AVAILABLE_ROLES',
      'LOGIN_METHODS',
      'ACCESS_TOKEN_TTL',
      'REFRESH_TOKEN_TTL',
      'RATE_LIMIT',
      'DELAY_AFTER',
    ]) {
      expect(env[k], k).toBeTruthy();
    }
  });

  it('lets .env override defaults and the process environment override .env, ignoring empty values', () => {
    const env = resolveDevEnv(
      { APP_NAME: 'from process', RPID: '' },
      { APP_NAME: 'from file', RATE_LIMIT: '7', RPID: 'file.test' },
    );
    expect(env['APP_NAME']).toBe('from process');
    expect(env['RATE_LIMIT']).toBe('7');
    expect(env['RPID']).toBe('file.test');
  });

  it('derives the issuer from PORT and HOST unless ISSUER is set', () => {
    expect(resolveDevEnv({ PORT: '9000' }, {})['ISSUER']).toBe('http://127.0.0.1:9000');
    expect(resolveDevEnv({ PORT: '9000', ISSUER: 'https://auth.example' }, {})['ISSUER']).toBe('https://auth.example');
    expect(devDefaults(1234, 'localhost')['ISSUER']).toBe('http://localhost:1234');
  });
});
