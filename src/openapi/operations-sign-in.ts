/** Health, keys and every pre-auth and session route (contract §3.1–§3.8, §3.13). */
import type * as z from 'zod/mini';
import { IDEMPOTENCY_KEY_PATTERN } from '../../common/idempotency-key.js';
import { MessageResponse, RevokedCountResponse } from '../http/responses/common.js';
import { OAuthProviderListResponse, OAuthStartResponse, WebAuthnOptions } from '../http/responses/account.js';
import {
  JwksResponse,
  LoginStartResponse,
  MagicLinkRequestResponse,
  MagicLinkVerifyResponse,
  OtpGenerateResponse,
  RegistrationResponse,
  SessionEnvelope,
  SessionOrMfaResponse,
} from '../http/responses/session.js';
import { loginBody } from '../routes/login.js';
import { requestBody as magicLinkBody, verifyBody as magicLinkVerifyBody } from '../routes/magic-link.js';
import { callbackBody, idTokenBody, startBody } from '../routes/oauth.js';
import { codeBody as otpCodeBody } from '../routes/otp.js';
import { registerBody } from '../routes/registration.js';
import { codeBody as totpCodeBody } from '../routes/totp.js';
import { assertionFinishSchema, assertionStartSchema } from '../routes/webauthn-schemas.js';
import { op, type Operation } from './operation.js';

const locked = ['account_locked'] as const;
/** What both OAuth sign-ins can refuse once the provider answered (src/services/oauth/sign-in.ts). */
const oauthSignInErrors = [
  'oauth_login_failed',
  'oauth_missing_subject',
  'oauth_missing_email',
  'oauth_email_not_verified',
  'oauth_signup_disabled',
  'login_method_disabled',
  ...locked,
] as const;
/** Bot protection (docs/bot-protection.md): the header and codes of every route `bot_protection` can guard. */
const challenge = {
  headers: [
    {
      name: 'x-svc-challenge-token',
      description:
        'The bot-protection token (Turnstile, hCaptcha or reCAPTCHA) when `GET /system-config/public` lists this route under `botProtection.routes`; one token per request.',
      schema: { type: 'string', minLength: 1, maxLength: 2048 },
    },
  ],
  errors: ['challenge_required', 'challenge_failed', 'challenge_unavailable'],
} as const;
const otpGenerate = (path: string, summary: string, credential: 'ephemeral:login' | 'ephemeral:registration') =>
  op('POST', path, summary, credential, OtpGenerateResponse, {
    errors: ['phone_not_available', 'login_method_disabled', ...locked, ...challenge.errors],
    headers: [...challenge.headers],
  });
const otpVerify = (
  path: string,
  summary: string,
  credential: 'ephemeral:login' | 'ephemeral:registration',
  ok: z.ZodMiniType,
) =>
  op('POST', path, summary, credential, ok, {
    body: otpCodeBody,
    errors: ['otp_verification_failed', 'login_method_disabled', ...locked],
  });

export const signInOperations: Operation[] = [
  op('GET', '/health/status', 'Liveness', 'none', MessageResponse),
  op('GET', '/health/version', 'API version (in `message`)', 'none', MessageResponse),
  op(
    'GET',
    '/.well-known/jwks.json',
    'Public signing keys (Cache-Control: public, max-age=300)',
    'none',
    JwksResponse,
    { errors: ['jwks_unavailable'] },
  ),
  op(
    'POST',
    '/login',
    'Start a sign-in: an ephemeral token (ctx login) and the usable methods',
    'none',
    LoginStartResponse,
    {
      body: loginBody,
      errors: ['invalid_identifier', ...locked, ...challenge.errors],
      headers: [...challenge.headers],
      description:
        'An unknown, unverified or revoked account gets the same answer (a decoy principal, contract §1.10).',
    },
  ),
  op('POST', '/registration/register', 'Start a registration and send an email code', 'none', RegistrationResponse, {
    body: registerBody,
    errors: [...challenge.errors],
    headers: [...challenge.headers],
  }),
  otpGenerate('/otp/generate-email-otp', 'Send a registration email code', 'ephemeral:registration'),
  otpGenerate('/otp/generate-phone-otp', 'Send a registration SMS code', 'ephemeral:registration'),
  otpGenerate('/otp/generate-login-email-otp', 'Send a sign-in email code', 'ephemeral:login'),
  otpGenerate('/otp/generate-login-phone-otp', 'Send a sign-in SMS code', 'ephemeral:login'),
  otpVerify(
    '/otp/verify-email-otp',
    'Verify the registration email code: completes the registration and signs in',
    'ephemeral:registration',
    SessionOrMfaResponse,
  ),
  otpVerify('/otp/verify-phone-otp', 'Verify the registration phone', 'ephemeral:registration', MessageResponse),
  otpVerify('/otp/verify-login-email-otp', 'Sign in with an email code', 'ephemeral:login', SessionOrMfaResponse),
  otpVerify('/otp/verify-login-phone-otp', 'Sign in with an SMS code', 'ephemeral:login', SessionOrMfaResponse),
  op('POST', '/magic-link', 'Send a sign-in link', 'ephemeral:login', MagicLinkRequestResponse, {
    body: magicLinkBody,
    errors: ['redirect_not_allowed', 'invalid_device_data', 'login_method_disabled', ...locked, ...challenge.errors],
    headers: [...challenge.headers],
  }),
  op(
    'POST',
    '/magic-link/verify/:token',
    'Verify a sign-in link (from the device that opened it)',
    'none',
    MagicLinkVerifyResponse,
    {
      body: magicLinkVerifyBody,
      errors: ['invalid_verification_token', 'magic_link_confirmation_failed', 'login_method_disabled'],
      description:
        'Per `magic_link_confirmation`: `number_match` — without `number` the answer is the challenge (three `choices`, who asked) and nothing is consumed; one `number` settles the link, a wrong one cancels it (400 `magic_link_confirmation_failed`). `same_device` — the `binding` from the request is required; without it the answer is the unknown-token 400. `none` — any verify completes the link.',
    },
  ),
  op(
    'POST',
    '/magic-link/check',
    'Poll for a verified link: a session once verified',
    'ephemeral:login',
    [
      { status: 200, schema: SessionOrMfaResponse },
      { status: 204, schema: null, description: 'Not verified yet' },
    ],
    { errors: ['login_method_disabled', ...locked] },
  ),
  op('POST', '/webauthn/login/start', 'Passkey sign-in options', 'ephemeral:login', WebAuthnOptions, {
    body: assertionStartSchema,
    errors: ['credentials_not_found', 'login_method_disabled', ...locked],
  }),
  op('POST', '/webauthn/login/finish', 'Sign in with a passkey assertion', 'ephemeral:login', SessionOrMfaResponse, {
    body: assertionFinishSchema,
    errors: ['authentication_failed', 'prf_output_not_allowed', 'login_method_disabled', ...locked],
  }),
  op('GET', '/oauth/providers', 'The usable OAuth providers', 'none', OAuthProviderListResponse),
  op(
    'POST',
    '/oauth/:providerId/start',
    'Start an OAuth sign-in: the authorization URL and state',
    'none',
    OAuthStartResponse,
    {
      body: startBody,
      errors: ['oauth_provider_not_found', 'oauth_redirect_not_allowed', 'login_method_disabled'],
    },
  ),
  op(
    'POST',
    '/oauth/:providerId/callback',
    'Finish an OAuth sign-in with the provider code',
    'none',
    SessionOrMfaResponse,
    {
      body: callbackBody,
      errors: ['oauth_provider_not_found', 'oauth_invalid_state', ...oauthSignInErrors],
    },
  ),
  op(
    'POST',
    '/oauth/:providerId/id-token',
    "Sign in with the platform's ID token (Sign in with Apple, Google) and the raw nonce",
    'none',
    SessionOrMfaResponse,
    {
      body: idTokenBody,
      errors: [
        'oauth_provider_not_found',
        'id_token_invalid',
        'id_token_nonce_mismatch',
        'id_token_replayed',
        ...oauthSignInErrors,
      ],
    },
  ),
  op(
    'POST',
    '/totp/verify-login',
    'Finish a sign-in with a TOTP code (ephemeral ctx mfa)',
    'ephemeral:mfa',
    SessionEnvelope,
    {
      body: totpCodeBody,
      errors: ['totp_verification_failed', 'totp_code_already_used', ...locked],
    },
  ),
  op('POST', '/refresh', 'Rotate a refresh token: a new session envelope', 'refresh', SessionEnvelope, {
    errors: ['invalid_refresh_token', 'refresh_token_reused'],
    headers: [
      {
        name: 'Idempotency-Key',
        description:
          'One per refresh attempt; send it again only to retry the same attempt after a lost answer. A replay of an already-rotated token gets a fresh rotation only with the key of the refresh that rotated it, within `refresh_reuse_grace_seconds`, while the successor is unused; any other replay is 401 `refresh_token_reused`. Malformed: 400 `invalid_request`.',
        schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source, minLength: 16, maxLength: 128 },
      },
    ],
  }),
  op('DELETE', '/logout', 'End the current sign-in chain', 'access', MessageResponse),
  op('DELETE', '/logout/all', 'End every session of the user', 'access', RevokedCountResponse),
  op(
    'GET',
    '/logout',
    'Deprecated form of DELETE /logout/all (answers with `Deprecation: true`)',
    'access',
    RevokedCountResponse,
  ),
];
