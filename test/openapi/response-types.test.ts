/**
 * The response schemas are written once, beside code that builds the answers
 * with its own TypeScript types. These compile-time checks tie each schema to
 * the type the code returns, so a changed serializer or service result breaks
 * `tsc` until the schema (and with it the OpenAPI document) follows.
 */
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import type { invitationJson, receivedInvitationJson } from '../../src/http/serialize-invitations.js';
import type {
  apiUserJson,
  authEventJson,
  credentialJson,
  meJson,
  membershipJson,
  organizationJson,
  sessionJson,
} from '../../src/http/serialize.js';
import type { adminSessionJson } from '../../src/http/serialize-admin.js';
import type * as R from '../../src/http/responses/index.js';
import type { LoginStartResult } from '../../src/services/sign-in/login-start.js';
import type { MfaRequiredBody, SessionEnvelope } from '../../src/services/session/issuance.js';
import type { StepUpStatus } from '../../src/services/session/step-up.js';
import type { EnrollmentStart, TotpStatusBody } from '../../src/services/totp/flows.js';
import type { DeviceReplacementResult } from '../../src/services/admin/device-replacement.js';
import type { RegistrationResult } from '../../src/services/sign-in/registration.js';
import type { OtpGenerateResult } from '../../src/services/otp/flow.js';
import type { DeliveryPayload } from '../../src/services/delivery/types.js';
import type { dashboard, groupedSummary, loginStats, timeseries } from '../../src/services/events/metrics.js';
import type { SystemConfigValues } from '../../src/config/keys.js';
import type { MagicLinkRequestResult, MagicLinkVerifyResult } from '../../src/services/magic-link/flow.js';

/** `true` when every value of A is a value of B (the code's answer fits the schema). */
type Fits<A, B> = [A] extends [B] ? true : false;
/** Both directions: the schema describes exactly the code's type. */
type Same<A, B> = Fits<A, B> extends true ? Fits<B, A> : false;
const ok = <T extends true>() => true as T;
type Out<S extends z.core.$ZodType> = z.output<S>;
type Awaited2<F extends (...a: never[]) => unknown> = Awaited<ReturnType<F>>;

export const checks = [
  ok<Same<ReturnType<typeof sessionJson>, Out<typeof R.Session>>>(),
  ok<Same<ReturnType<typeof meJson>, Out<typeof R.Me>>>(),
  ok<Same<ReturnType<typeof credentialJson>, Out<typeof R.Credential>>>(),
  ok<Same<ReturnType<typeof membershipJson>, Out<typeof R.Membership>>>(),
  ok<Same<ReturnType<typeof invitationJson>, Out<typeof R.Invitation>>>(),
  ok<Same<ReturnType<typeof receivedInvitationJson>, Out<typeof R.ReceivedInvitation>>>(),
  ok<Fits<ReturnType<typeof organizationJson>, Out<typeof R.Organization>>>(),
  ok<Same<ReturnType<typeof apiUserJson>, Out<typeof R.AdminUser>>>(),
  ok<Fits<ReturnType<typeof authEventJson>, Out<typeof R.AuthEvent>>>(),
  ok<Same<ReturnType<typeof adminSessionJson>, Out<typeof R.AdminSession>>>(),
  ok<Same<LoginStartResult, Out<typeof R.LoginStartResponse>>>(),
  ok<Same<SessionEnvelope, Out<typeof R.SessionEnvelope>>>(),
  ok<Same<MfaRequiredBody, Out<typeof R.MfaRequiredResponse>>>(),
  ok<Same<StepUpStatus, Out<typeof R.StepUpStatus>>>(),
  ok<Same<TotpStatusBody, Out<typeof R.TotpStatus>>>(),
  ok<Same<EnrollmentStart, Out<typeof R.TotpEnrollmentStart>>>(),
  ok<Same<DeviceReplacementResult, Out<typeof R.DeviceReplacementResponse>>>(),
  ok<Fits<RegistrationResult['body'], Out<typeof R.RegistrationResponse>>>(),
  ok<Fits<OtpGenerateResult['body'], Out<typeof R.OtpGenerateResponse>>>(),
  ok<Same<DeliveryPayload, Out<typeof R.DeliveryPayload>>>(),
  ok<Fits<MagicLinkRequestResult['body'], Out<typeof R.MagicLinkRequestResponse>>>(),
  ok<Same<MagicLinkVerifyResult, Out<typeof R.MagicLinkVerifyResponse>>>(),
  ok<Fits<Awaited2<typeof loginStats>, Out<typeof R.LoginStatsResponse>>>(),
  ok<Fits<Awaited2<typeof groupedSummary>, Out<typeof R.GroupedSummaryResponse>>>(),
  ok<Fits<Awaited2<typeof timeseries>, Out<typeof R.TimeseriesResponse>>>(),
  ok<Fits<Awaited2<typeof dashboard>, Out<typeof R.DashboardResponse>>>(),
  ok<Same<SystemConfigValues, Out<typeof R.SystemConfigResponse>>>(),
];

describe('response schemas and the code’s types', () => {
  it('agree (checked by tsc; see the `checks` list)', () => {
    expect(checks.every(Boolean)).toBe(true);
  });
});
