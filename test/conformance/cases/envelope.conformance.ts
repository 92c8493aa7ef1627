/** The error envelope, health and JWKS routes, and unknown routes/methods (contract §0.4, §3.0). */
import { describe, expect, it } from 'vitest';
import { call, expectError } from '../client.js';

describe('public endpoints', () => {
  it('answers /health/status', async () => {
    const r = await call('GET', '/health/status');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: 'System up' });
  });

  it('answers /health/version with a version string', async () => {
    const r = await call('GET', '/health/version');
    expect(r.status).toBe(200);
    expect(r.body.message).toEqual(expect.any(String));
  });

  it('serves the JWKS with the active RS256 key', async () => {
    const r = await call('GET', '/.well-known/jwks.json');
    expect(r.status).toBe(200);
    expect(r.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
    expect(JSON.stringify(r.body)).not.toMatch(/"d"|"p"|"q"/);
  });

  it('lists the OAuth providers without secrets', async () => {
    const r = await call('GET', '/oauth/providers');
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body)).toContain('testop');
    expect(JSON.stringify(r.body)).not.toMatch(/secret/i);
  });

  it('publishes the public system config', async () => {
    const r = await call('GET', '/system-config/public');
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body)).toContain('email_otp');
  });

  it('marks answers no-store', async () => {
    const r = await call('GET', '/health/status');
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('sends the global rate-limit headers', async () => {
    const r = await call('GET', '/health/status');
    expect(Number(r.headers.get('ratelimit-limit'))).toBeGreaterThan(0);
    expect(r.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
  });
});

describe('unknown routes and methods', () => {
  const unknown = ['/nope', '/users/me/extra', '/admin', '/.well-known/openid-configuration', '/oauth'];
  for (const path of unknown) {
    it(`answers 404 not_found for GET ${path}`, async () => {
      expectError(await call('GET', path), 404, 'not_found');
    });
  }

  const wrongMethods: [string, string, string][] = [
    ['PUT', '/users/me', 'GET'],
    ['GET', '/refresh', 'POST'],
    ['GET', '/login', 'POST'],
    ['DELETE', '/registration/register', 'POST'],
    ['POST', '/.well-known/jwks.json', 'GET'],
  ];
  for (const [method, path, allow] of wrongMethods) {
    it(`answers 405 method_not_allowed with Allow for ${method} ${path}`, async () => {
      const r = await call(method, path);
      expectError(r, 405, 'method_not_allowed');
      expect(r.headers.get('allow')).toContain(allow);
    });
  }
});

describe('authentication errors', () => {
  const guarded: [string, string][] = [
    ['GET', '/users/me'],
    ['GET', '/sessions'],
    ['GET', '/organizations'],
    ['GET', '/totp/status'],
    ['GET', '/step-up/status'],
    ['GET', '/admin/users'],
    ['POST', '/webauthn/register/start'],
  ];
  for (const [method, path] of guarded) {
    it(`answers 401 unauthorized for ${method} ${path} without a bearer`, async () => {
      expectError(await call(method, path), 401, 'unauthorized');
    });
  }

  it('refuses a malformed bearer on /users/me', async () => {
    expectError(await call('GET', '/users/me', { token: 'not-a-jwt' }), 401, 'unauthorized');
  });

  it('refuses a token signed with another key on /users/me', async () => {
    const forged = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    expectError(await call('GET', '/users/me', { token: forged }), 401, 'unauthorized');
  });
});
