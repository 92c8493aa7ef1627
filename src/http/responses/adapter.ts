/**
 * What the adapter's browser-facing routes answer (contract §5.3–§5.7), as
 * projections of the API's response schemas: in cookie transport the tokens
 * move into cookies and leave the body; bearer transport
 * (`x-svc-auth-transport: bearer`) returns them. `delivery` never reaches a browser.
 */
import { OAuthStartResponse, OrganizationSwitchResponse, Session } from './account.js';
import {
  LoginStartResponse,
  MagicLinkRequestResponse,
  MfaRequiredResponse,
  OtpGenerateResponse,
  RegistrationResponse,
  SessionEnvelope,
} from './session.js';
import * as z from 'zod/mini';

export const AdapterLoginCookieResponse = z.pick(LoginStartResponse, {
  message: true,
  identifierType: true,
  loginMethods: true,
});
export const AdapterRegistrationCookieResponse = z.omit(RegistrationResponse, { token: true, delivery: true });
export const AdapterRegistrationBearerResponse = z.omit(RegistrationResponse, { delivery: true });
export const AdapterOtpGenerateCookieResponse = z.omit(OtpGenerateResponse, { token: true, delivery: true });
export const AdapterOtpGenerateBearerResponse = z.omit(OtpGenerateResponse, { delivery: true });
export const AdapterMagicLinkRequestResponse = z.omit(MagicLinkRequestResponse, { delivery: true });
export const AdapterSessionCookieResponse = z.omit(SessionEnvelope, { token: true, refreshToken: true });
export const AdapterMfaRequiredCookieResponse = z.omit(MfaRequiredResponse, { token: true });
export const AdapterSessionOrMfaCookieResponse = z.union([
  AdapterSessionCookieResponse,
  AdapterMfaRequiredCookieResponse,
]);
/** `POST /auth/refresh` in cookie transport: the envelope's non-secret fields (§5.7). */
export const AdapterRefreshCookieResponse = z.omit(SessionEnvelope, {
  token: true,
  refreshToken: true,
  returnTo: true,
});
export const AdapterOrganizationSwitchCookieResponse = z.omit(OrganizationSwitchResponse, { token: true });
/**
 * `POST /auth/oauth/:providerId/start` in cookie transport: the flow binding is
 * in the `svc-oauth-binding` cookie, not the body.
 */
export const AdapterOAuthStartCookieResponse = z.omit(OAuthStartResponse, { binding: true });

/** Browser, OS (names and major versions) and device type, parsed by the adapter from `userAgent` with bowser. */
export const DeviceInfo = z.nullable(
  z.object({
    browser: z.nullable(z.string()),
    browserVersion: z.nullable(z.string()),
    os: z.nullable(z.string()),
    osVersion: z.nullable(z.string()),
    type: z.nullable(z.enum(['desktop', 'mobile', 'tablet', 'tv', 'bot'])),
  }),
);
/** `GET /auth/sessions`: the API's list, each session with `device` (docs/devices.md). */
export const AdapterSessionListResponse = z.object({
  sessions: z.array(z.extend(Session, { device: DeviceInfo })),
  total: z.number().check(z.int(), z.gte(0)),
});
