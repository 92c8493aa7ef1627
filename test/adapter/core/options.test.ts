import { describe, expect, it } from 'vitest';
import { createAdapterCore } from '../../../adapter/core/core.js';
import { resolveOptions, type SvcAdapterOptions } from '../../../adapter/core/options.js';
import { svcAdapter } from '../../../adapter/hono/index.js';

const base: SvcAdapterOptions = {
  authServerUrl: 'http://127.0.0.1:8787/',
  cookieSecret: 'c'.repeat(32),
  serviceSecret: 's'.repeat(32),
  issuer: 'http://localhost:3000',
  audience: 'http://127.0.0.1:8787/',
};

describe('adapter options (contract §5.1)', () => {
  it.each([
    [{ cookieSecret: undefined }, 'svcAdapter: missing cookieSecret'],
    [{ cookieSecret: 'x'.repeat(31) }, 'svcAdapter: cookieSecret must be at least 32 characters'],
    [{ serviceSecret: undefined }, 'svcAdapter: missing serviceSecret'],
    [{ serviceSecret: 'x'.repeat(31) }, 'svcAdapter: serviceSecret must be at least 32 characters'],
    [{ serviceSecret: 'c'.repeat(32) }, 'svcAdapter: cookieSecret and serviceSecret must be different'],
    [{ authServerUrl: 'localhost:8787' }, 'svcAdapter: authServerUrl must be an absolute http(s) URL'],
    [{ authServerUrl: 'ftp://x' }, 'svcAdapter: authServerUrl must be an absolute http(s) URL'],
    [{ issuer: '/relative' }, 'svcAdapter: issuer must be an absolute http(s) URL'],
    [{ audience: '' }, 'svcAdapter: missing audience'],
    [{ cookieSameSite: 'none', cookieSecure: false }, /cookieSameSite "none" requires cookieSecure/],
    [{ messaging: { handlers: { otpEmail: async () => {} } } }, /cannot deliver magic_link_email/],
    [
      {
        messaging: {
          sms: { name: 'x', send: async () => ({ accepted: true, provider: 'x', channel: 'sms' as const }) },
        },
      },
      /cannot deliver otp_email/,
    ],
  ])('svcAdapter(%j) throws', (over, message) => {
    expect(() => svcAdapter({ ...base, ...(over as object) })).toThrow(message);
  });

  it('applies defaults once: names, dev cookie attributes, trailing slashes, issuer origin allowed', () => {
    const before = process.env['NODE_ENV'];
    process.env['NODE_ENV'] = 'test';
    try {
      const r = resolveOptions(base);
      expect(r.names).toEqual({
        access: 'svc-access',
        refresh: 'svc-refresh',
        registration: 'svc-ephemeral',
        preAuth: 'svc-ephemeral',
        oauthBinding: 'svc-oauth-binding',
        magicLink: 'svc-magic-link',
      });
      expect(r.cookie).toEqual({ secure: false, sameSite: 'lax', domain: undefined });
      expect(r.authServerUrl).toBe('http://127.0.0.1:8787');
      expect(r.audience).toBe('http://127.0.0.1:8787');
      expect(r.jwksKid).toBe('dev-main');
      expect([...r.allowedOrigins]).toEqual(['http://localhost:3000']);
    } finally {
      process.env['NODE_ENV'] = before;
    }
  });

  it('reads NODE_ENV once: a core built before a change keeps its cookie policy', () => {
    const before = process.env['NODE_ENV'];
    process.env['NODE_ENV'] = 'test';
    try {
      const core = createAdapterCore({ ...base }, 'svc-hono-adapter');
      process.env['NODE_ENV'] = 'production';
      expect(core.opts.cookie).toMatchObject({ secure: false, sameSite: 'lax' });
      // A core constructed now reads the new value.
      expect(createAdapterCore({ ...base }, 'svc-hono-adapter').opts.cookie).toMatchObject({
        secure: true,
        sameSite: 'none',
      });
    } finally {
      process.env['NODE_ENV'] = before;
    }
  });

  it('uses Secure + SameSite=None in production, overridable', () => {
    const before = process.env['NODE_ENV'];
    process.env['NODE_ENV'] = 'production';
    try {
      expect(resolveOptions(base).cookie).toMatchObject({ secure: true, sameSite: 'none' });
      expect(resolveOptions({ ...base, cookieSameSite: 'lax' }).cookie).toMatchObject({
        secure: true,
        sameSite: 'lax',
      });
    } finally {
      process.env['NODE_ENV'] = before;
    }
  });

  it('accepts messaging through the email transport alone', () => {
    expect(() =>
      svcAdapter({
        ...base,
        messaging: { email: { name: 'x', send: async () => ({ accepted: true, provider: 'x', channel: 'email' }) } },
      }),
    ).not.toThrow();
  });
});
