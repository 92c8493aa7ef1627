/**
 * Creation and request options JSON (WebAuthn L3 §5.4, §5.5, `toJSON()`
 * forms) by `@simplewebauthn/server` 13, with svc's settings: attestation
 * `none`, UV required, resident key preferred, the extensions svc asks for.
 * `test/api/services/webauthn-options.test.ts` pins the JSON clients receive,
 * field for field and in order.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type AuthenticatorTransportFuture,
} from '@simplewebauthn/server';
import { fromBase64Url, utf8 } from '../../../common/encoding.js';

/** The challenge svc issued (base64url of random bytes) as the bytes the library wants. */
function challengeBytes(challenge: string): Uint8Array<ArrayBuffer> {
  const bytes = fromBase64Url(challenge);
  if (!bytes) throw new TypeError('a WebAuthn challenge must be base64url');
  return new Uint8Array(bytes);
}
export interface CredentialRef {
  id: string;
  transports: string[];
}

const descriptor = (c: CredentialRef) => ({ id: c.id, transports: c.transports as AuthenticatorTransportFuture[] });

export interface CreationOptionsInput {
  rpName: string;
  rpId: string;
  /** The user id (UTF-8), sent as `user.id` base64url. */
  userId: string;
  userName: string;
  /** The challenge as issued (base64url). */
  challenge: string;
  timeout: number;
  algorithms: readonly number[];
  exclude: CredentialRef[];
  attachment?: 'platform' | 'cross-platform' | undefined;
  extensions: Record<string, unknown>;
}

/**
 * `PublicKeyCredentialCreationOptionsJSON` with `attestation: "none"` and UV
 * required, by the library's `generateRegistrationOptions`. `extensions` is
 * replaced afterwards, not passed in: the library would merge its own
 * `credProps` after ours and reorder the object.
 */
export async function creationOptions(input: CreationOptionsInput) {
  const options = await generateRegistrationOptions({
    rpName: input.rpName,
    rpID: input.rpId,
    userID: new Uint8Array(utf8(input.userId)),
    userName: input.userName,
    userDisplayName: input.userName,
    // Bytes, not the string: the library would UTF-8-encode a string challenge again.
    challenge: challengeBytes(input.challenge),
    timeout: input.timeout,
    attestationType: 'none',
    supportedAlgorithmIDs: [...input.algorithms],
    // Only id and transports: the library copies every field of a descriptor into the options.
    excludeCredentials: input.exclude.map(descriptor),
    authenticatorSelection: {
      residentKey: 'preferred',
      userVerification: 'required',
      ...(input.attachment ? { authenticatorAttachment: input.attachment } : {}),
    },
  });
  return { ...options, extensions: input.extensions };
}

export interface RequestOptionsInput {
  rpId: string;
  challenge: string;
  timeout: number;
  allow: CredentialRef[];
  extensions?: Record<string, unknown> | undefined;
}

/**
 * `PublicKeyCredentialRequestOptionsJSON` with UV required, by the library's
 * `generateAuthenticationOptions`; `extensions` only when given (the library
 * writes `extensions: undefined`, which JSON drops but the object keeps).
 */
export async function requestOptions(input: RequestOptionsInput) {
  const { extensions: _none, ...options } = await generateAuthenticationOptions({
    rpID: input.rpId,
    challenge: challengeBytes(input.challenge),
    timeout: input.timeout,
    userVerification: 'required',
    allowCredentials: input.allow.map(descriptor),
  });
  return input.extensions ? { ...options, extensions: input.extensions } : options;
}
