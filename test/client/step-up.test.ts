/**
 * `svc-auth/client` and RFC 9470: a bearer client's `SvcError`
 * carries the step-up challenge of a 403 `step_up_required`, and the app can
 * step up and retry.
 */
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../client/index.js';
import { parseStepUpChallenge } from '../../client/step-up-challenge.js';
import { enrolPasskey, nativeApp, signUp } from './helpers.js';

describe('client: step-up challenge (bearer transport, real adapter + API)', () => {
  it('surfaces maxAgeSeconds and acrValues on SvcError, then succeeds after a passkey step-up', async () => {
    const app = await nativeApp();
    const client = app.client();
    await signUp(app, client, 'ada@example.com');
    const { authenticator } = await enrolPasskey(client);

    const refused = await client.passkeyRegisterStart({}).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(SvcError);
    const err = refused as SvcError;
    expect(err.code).toBe('step_up_required');
    expect(err.status).toBe(403);
    expect(err.stepUp).toEqual({
      maxAgeSeconds: 300,
      acrValues: ['urn:svc:acr:step-up'],
      description: 'A recent step-up authentication is required',
    });

    const options = await client.stepUpPasskeyStart({});
    await client.stepUpPasskeyFinish({ assertionResponse: await authenticator.assert(options as never) });
    await expect(client.passkeyRegisterStart({})).resolves.toMatchObject({ challenge: expect.any(String) });
  });

  it('leaves stepUp null on other errors', async () => {
    const app = await nativeApp();
    const client = app.client();
    const err = await client.me().then(
      () => null,
      (e: unknown) => e as SvcError,
    );
    expect(err).toBeInstanceOf(SvcError);
    expect(err!.stepUp).toBeNull();
  });
});

describe('parseStepUpChallenge', () => {
  it.each([
    [
      'Bearer error="insufficient_user_authentication", max_age=5',
      { maxAgeSeconds: 5, acrValues: [], description: null },
    ],
    // RFC 9470 §3's own examples quote the values.
    [
      'Bearer error="insufficient_user_authentication", error_description="More recent authentication is required", max_age="5"',
      { maxAgeSeconds: 5, acrValues: [], description: 'More recent authentication is required' },
    ],
    [
      'Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="myACR other"',
      {
        maxAgeSeconds: null,
        acrValues: ['myACR', 'other'],
        description: 'A different authentication level is required',
      },
    ],
    [
      'DPoP algs="ES256", Bearer error="insufficient_user_authentication", max_age=60',
      { maxAgeSeconds: 60, acrValues: [], description: null },
    ],
  ])('reads %s', (header, expected) => {
    expect(parseStepUpChallenge(header)).toEqual(expected);
  });

  it.each([null, '', 'Bearer error="invalid_token"', 'Basic realm="x"', 'Bearer max_age=5'])('ignores %j', (header) => {
    expect(parseStepUpChallenge(header)).toBeNull();
  });
});
