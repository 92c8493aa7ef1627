/**
 * Type-level contract: the client's argument and answer types ARE the API's
 * zod schemas and wire types, so changing a schema or a serializer changes
 * (and, where callers disagree, breaks) the client's typecheck. Checked by
 * `tsc --noEmit` (the `@ts-expect-error` lines fail the typecheck if they
 * stop being errors) and by vitest's expectTypeOf at compile time.
 */
import type { DeviceInfo } from '../../common/device.js';
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { SvcClient } from '../../client/index.js';
import type { meJson, sessionJson } from '../../src/http/serialize.js';
import type { loginBody } from '../../src/routes/login.js';
import type { codeBody } from '../../src/routes/otp.js';
import type { assertionFinishSchema } from '../../src/routes/webauthn-schemas.js';
import type { LoginStartResult } from '../../src/services/sign-in/login-start.js';
import type { SessionEnvelope } from '../../src/services/session/issuance.js';

type Arg<K extends keyof SvcClient> = SvcClient[K] extends (input: infer I) => unknown ? I : never;
type Out<K extends keyof SvcClient> = SvcClient[K] extends (...a: never[]) => Promise<infer O> ? O : never;

describe('client types follow the wire definitions', () => {
  it('requests are the zod input types of the API routes', () => {
    expectTypeOf<Arg<'login'>>().toEqualTypeOf<z.input<typeof loginBody>>();
    expectTypeOf<Arg<'verifyLoginEmailOtp'>>().toEqualTypeOf<z.input<typeof codeBody>>();
    expectTypeOf<Arg<'passkeyLoginFinish'>>().toEqualTypeOf<z.input<typeof assertionFinishSchema>>();
  });

  it('answers are the API response types without the tokens the client keeps', () => {
    expectTypeOf<Out<'login'>>().toEqualTypeOf<Omit<LoginStartResult, 'token'>>();
    expectTypeOf<Out<'me'>['user']>().toEqualTypeOf<ReturnType<typeof meJson>>();
    // The adapter adds the parsed device to each session (adapter/core/device.ts).
    expectTypeOf<Out<'listSessions'>['sessions'][number]>().toEqualTypeOf<
      ReturnType<typeof sessionJson> & { device: DeviceInfo | null }
    >();
    expectTypeOf<Out<'refresh'>>().toEqualTypeOf<Omit<SessionEnvelope, 'token' | 'refreshToken'>>();
    expectTypeOf<Out<'login'>>().not.toHaveProperty('token');
  });

  it('wrong arguments do not typecheck', () => {
    const client = {} as SvcClient;
    const never = () => {
      // @ts-expect-error identifier is a string in loginBody
      void client.login({ identifier: 1 });
      // @ts-expect-error verificationToken is required by the OTP schema
      void client.verifyLoginEmailOtp({});
      // @ts-expect-error the path parameter is required
      void client.getOrganization({});
      // @ts-expect-error no such route
      void client.loginWithPassword({ password: 'x' });
    };
    void never;
  });
});
