/**
 * What the adapter's browser-facing routes answer (contract §5.3–§5.7), as
 * projections of the API's response schemas: in cookie transport the tokens
 * move into cookies and leave the body; bearer transport
 * (`x-svc-auth-transport: bearer`) returns them. `delivery` never reaches a browser.
 */
import { OrganizationSwitchResponse } from './account.js';
import { LoginStartResponse, MagicLinkRequestResponse, MfaRequiredResponse, OtpGenerateResponse, RegistrationResponse, SessionEnvelope } from './session.js';
import * as z from 'zod';

export const AdapterLoginCookieResponse = LoginStartResponse.pick({ message: true, identifierType: true, loginMethods: true });
export const AdapterRegistrationCookieResponse = RegistrationResponse.omit({ token: true, delivery: true });
export const AdapterRegistrationBearerResponse = RegistrationResponse.omit({ delivery: true });
export const AdapterOtpGenerateCookieResponse = OtpGenerateResponse.omit({ token: true, delivery: true });
export const AdapterOtpGenerateBearerResponse = OtpGenerateResponse.omit({ delivery: true });
export const AdapterMagicLinkRequestResponse = MagicLinkRequestResponse.omit({ delivery: true });
export const AdapterSessionCookieResponse = SessionEnvelope.omit({ token: true, refreshToken: true });
export const AdapterMfaRequiredCookieResponse = MfaRequiredResponse.omit({ token: true });
export const AdapterSessionOrMfaCookieResponse = z.union([AdapterSessionCookieResponse, AdapterMfaRequiredCookieResponse]);
/** `POST /auth/refresh` in cookie transport: the envelope's non-secret fields (§5.7). */
export const AdapterRefreshCookieResponse = SessionEnvelope.omit({ token: true, refreshToken: true, returnTo: true });
export const AdapterOrganizationSwitchCookieResponse = OrganizationSwitchResponse.omit({ token: true });
