/**
 * The error code table (contract §0.4) and its rendering through the real
 * pipeline: every API code has the contract's status and default message and
 * renders as exactly `{error, message, ...extras}`.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { ERRORS, fail, type ErrorCode } from '../../src/errors.js';
import { makeApi } from '../helpers/make-app.js';

/** Contract §0.4, API rows (the adapter-only 403/502 codes live in adapter/core). */
const CONTRACT: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_identifier: 400,
  phone_not_available: 400,
  redirect_not_allowed: 400,
  invalid_device_data: 400,
  invalid_verification_token: 400,
  magic_link_confirmation_failed: 400,
  prf_output_not_allowed: 400,
  oauth_redirect_not_allowed: 400,
  oauth_invalid_state: 400,
  oauth_login_failed: 400,
  oauth_missing_subject: 400,
  oauth_missing_email: 400,
  oauth_email_not_verified: 400,
  last_owner: 400,
  role_not_available: 400,
  role_in_use: 400,
  invalid_config: 400,
  no_changes: 400,
  unauthorized: 401,
  invalid_refresh_token: 401,
  refresh_token_reused: 401,
  otp_verification_failed: 401,
  authentication_failed: 401,
  credentials_not_found: 401,
  id_token_invalid: 401, // docs/contract-changes.md: native ID-token sign-in
  id_token_nonce_mismatch: 401, // idem
  id_token_replayed: 401, // idem
  totp_verification_failed: 403, // 401 on the ephemeral verify-login route (§0.4 status rule)
  totp_code_already_used: 403, // idem; docs/contract-changes.md: a spent TOTP step
  not_allowed: 403,
  forbidden: 403,
  step_up_required: 403,
  step_up_unavailable: 403,
  step_up_failed: 403,
  login_method_disabled: 403,
  webauthn_registration_failed: 403,
  prf_required: 403,
  oauth_signup_disabled: 403,
  origin_not_allowed: 403,
  not_found: 404,
  oauth_provider_not_found: 404,
  method_not_allowed: 405,
  already_exists: 409,
  last_credential: 409,
  payload_too_large: 413,
  account_locked: 423,
  rate_limited: 429,
  internal_error: 500,
  jwks_unavailable: 500,
  request_timeout: 408, // docs/contract-changes.md: Node entry only, answered by the HTTP server
  headers_too_large: 431, // idem
  service_unavailable: 503, // docs/contract-changes.md: database busy or unreachable, request deadline
  recovery_codes_unavailable: 403, // docs/contract-changes.md: recovery codes
  recovery_code_invalid: 403, // idem; 401 on the ephemeral verify-login route (§0.4 status rule)
  email_in_use: 409, // docs/contract-changes.md: changing email or phone
  phone_in_use: 409, // idem
  challenge_required: 400, // docs/contract-changes.md: bot protection
  challenge_failed: 403, // idem
  challenge_unavailable: 503, // idem
  oauth_client_not_found: 404, // docs/contract-changes.md: OAuth provider clients
  oauth_client_not_confidential: 400, // idem
  oauth_registration_disabled: 404, // idem
  oauth_server_disabled: 404, // docs/contract-changes.md: the OAuth provider
  oauth_request_expired: 400, // idem
};

describe('error code table (contract §0.4)', () => {
  it('has exactly the contract’s API codes, each with its status', () => {
    expect(Object.keys(ERRORS).sort()).toEqual(Object.keys(CONTRACT).sort());
    for (const [code, [status, message]] of Object.entries(ERRORS)) {
      expect(status, code).toBe(CONTRACT[code as ErrorCode]);
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(message.length, code).toBeGreaterThan(0);
    }
  });

  it('renders every code through the pipeline as exactly {error, message}, with its status and no-store', async () => {
    const t = await makeApi();
    const app = createApp(t.api.deps);
    app.post('/test/fail/:code', (c) => {
      throw fail(c.req.param('code') as ErrorCode);
    });
    for (const [code, [status, message]] of Object.entries(ERRORS)) {
      const res = await app.request(`/test/fail/${code}`, { method: 'POST' });
      expect(res.status, code).toBe(status);
      expect(res.headers.get('content-type'), code).toMatch(/^application\/json/);
      expect(res.headers.get('cache-control'), code).toBe('no-store');
      expect(await res.json(), code).toEqual({ error: code, message });
    }
  });

  it('keeps documented extras and headers, and a route-specific message', async () => {
    const t = await makeApi();
    const app = createApp(t.api.deps);
    app.post('/test/locked', () => {
      throw fail('account_locked', undefined, { retryAfterSeconds: 42 }, { 'retry-after': '42' });
    });
    app.post('/test/session', () => {
      throw fail('not_found', 'Session not found');
    });
    const locked = await app.request('/test/locked', { method: 'POST' });
    expect(locked.status).toBe(423);
    expect(locked.headers.get('retry-after')).toBe('42');
    expect(await locked.json()).toEqual({
      error: 'account_locked',
      message: 'Too many failed authentication attempts. Try again later.',
      retryAfterSeconds: 42,
    });
    expect(await (await app.request('/test/session', { method: 'POST' })).json()).toEqual({
      error: 'not_found',
      message: 'Session not found',
    });
  });
});
