/**
 * Bad input never reaches a 500: every route answers the contract envelope
 * for malformed JSON, wrong shapes, oversize bodies and bad identifiers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, signUp, type Session } from '../client.js';

describe('malformed bodies on the pre-auth routes', () => {
  const routes = ['/login', '/registration/register', '/magic-link/check', '/refresh'];
  for (const path of routes) {
    it(`answers 400 invalid_request to malformed JSON on POST ${path}`, async () => {
      expectError(await call('POST', path, { rawBody: '{"email": ' }), 400, 'invalid_request');
    });
  }

  it('answers 413 payload_too_large to a body over 100 KB', async () => {
    const r = await call('POST', '/login', { rawBody: JSON.stringify({ identifier: 'x'.repeat(110 * 1024) }) });
    expectError(r, 413, 'payload_too_large');
  });

  it('answers 400 to deeply nested JSON without a 500', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const r = await call('POST', '/login', { rawBody: deep });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^(invalid_request|invalid_identifier)$/);
  });
});

describe('POST /login input', () => {
  const bad: [string, unknown, string][] = [
    ['no identifier', {}, 'invalid_request'],
    ['a number identifier', { identifier: 42 }, 'invalid_request'],
    ['an array body', [], 'invalid_request'],
    ['a null identifier', { identifier: null }, 'invalid_request'],
    ['an identifier that is neither email nor phone', { identifier: 'just-a-name' }, 'invalid_identifier'],
    ['a phone without a plus', { identifier: '447700900123' }, 'invalid_identifier'],
    ['an email without a domain', { identifier: 'ada@' }, 'invalid_identifier'],
  ];
  for (const [what, body, code] of bad) {
    it(`answers 400 ${code} to ${what}`, async () => {
      expectError(await call('POST', '/login', { body }), 400, code);
    });
  }
});

describe('POST /registration/register input', () => {
  const bad: [string, unknown][] = [
    ['no email', {}],
    ['a non-email', { email: 'not-an-email' }],
    ['an email that is an object', { email: { a: 1 } }],
    ['a bad phone', { email: 'ok@conformance.test', phone: 'call me' }],
  ];
  for (const [what, body] of bad) {
    it(`answers 400 to ${what}`, async () => {
      const r = await call('POST', '/registration/register', { body });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error).toMatch(/^(invalid_request|invalid_identifier)$/);
    });
  }
});

describe('verification routes input', () => {
  it('answers 401 to verify-email-otp without an ephemeral token', async () => {
    expectError(
      await call('POST', '/otp/verify-email-otp', { body: { verificationToken: 'ABCDEF' } }),
      401,
      'unauthorized',
    );
  });

  it('answers 401 to verify-login-email-otp with an access token instead of an ephemeral one', async () => {
    const s = await signUp();
    expectError(
      await call('POST', '/otp/verify-login-email-otp', { token: s.token, body: { verificationToken: 'ABCDEF' } }),
      401,
      'unauthorized',
    );
  });

  it('answers 401 to /magic-link/check without a login token', async () => {
    expectError(await call('POST', '/magic-link/check'), 401, 'unauthorized');
  });

  it('answers 401 to /webauthn/login/start without a login token', async () => {
    expectError(await call('POST', '/webauthn/login/start'), 401, 'unauthorized');
  });

  it('answers 401 to /totp/verify-login without an mfa token', async () => {
    expectError(await call('POST', '/totp/verify-login', { body: { code: '123456' } }), 401, 'unauthorized');
  });
});

describe('signed-in routes input', () => {
  let s: Session;
  beforeAll(async () => {
    s = await signUp();
  });

  const bad: [string, string, unknown][] = [
    ['POST', '/organizations', {}],
    ['POST', '/organizations', { name: 7 }],
    ['POST', '/organizations', { name: '' }],
    ['POST', '/totp/enroll/verify', {}],
    ['POST', '/totp/enroll/verify', { code: ['123456'] }],
    ['POST', '/webauthn/register/finish', {}],
    ['POST', '/webauthn/register/finish', { attestationResponse: 'nope' }],
    ['DELETE', '/users/credentials', { credentialId: 5 }],
  ];
  for (const [method, path, body] of bad) {
    it(`answers a 4xx envelope to ${method} ${path} with ${JSON.stringify(body)}`, async () => {
      const r = await call(method, path, { token: s.token, body });
      expect(r.status, JSON.stringify(r.body)).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(r.body.error).toMatch(/^[a-z_]+$/);
    });
  }

  it('answers 404 not_found for an unknown organization id', async () => {
    expectError(await call('GET', '/organizations/does-not-exist', { token: s.token }), 404, 'not_found');
  });

  it('answers 404 not_found for deleting an unknown session id', async () => {
    expectError(await call('DELETE', '/sessions/does-not-exist', { token: s.token }), 404, 'not_found');
  });
});

describe('OAuth input', () => {
  it('answers 404 oauth_provider_not_found for an unknown provider', async () => {
    expectError(await call('POST', '/oauth/nobody/start', { body: {} }), 404, 'oauth_provider_not_found');
  });

  it('answers 400 oauth_invalid_state to a forged state', async () => {
    expectError(
      await call('POST', '/oauth/testop/callback', { body: { code: 'abc', state: 'forged.state' } }),
      400,
      'oauth_invalid_state',
    );
  });

  it('answers 400 to a callback without code', async () => {
    const r = await call('POST', '/oauth/testop/callback', { body: { state: 'x' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^(invalid_request|oauth_invalid_state)$/);
  });

  it('answers 400 oauth_redirect_not_allowed to a foreign redirect', async () => {
    expectError(
      await call('POST', '/oauth/testop/start', { body: { redirectUri: 'https://evil.example/cb' } }),
      400,
      'oauth_redirect_not_allowed',
    );
  });
});
