/**
 * The one error type of the WebAuthn verifier. `reason` is a short, fixed code
 * for audit metadata (`webauthn_*_failed {reason}`); the message is static and
 * never echoes a client value.
 */
export type WebAuthnFailure =
  /** Not decodable: base64url, JSON, CBOR, authenticator data layout, attestation statement shape. */
  | 'malformed'
  /** `clientDataJSON.type` is not the ceremony's (`webauthn.create` / `webauthn.get`). */
  | 'type'
  | 'challenge'
  | 'origin'
  /** `authenticatorData.rpIdHash` ≠ SHA-256(rpId). */
  | 'rp_id'
  | 'user_presence'
  | 'user_verification'
  /** `id`/`rawId` disagree, or differ from the credential id in the attested credential data. */
  | 'credential_id'
  /** COSE `alg` missing, not in the accepted list, or inconsistent with the key type. */
  | 'algorithm'
  /** The COSE key does not describe a usable public key (wrong sizes, point not on the curve). */
  | 'public_key'
  /** Unknown `fmt`, a non-empty `none` statement, or a `packed` self-attestation that does not verify. */
  | 'attestation'
  /** BS set without BE (a single-device credential cannot be backed up). */
  | 'backup_flags'
  | 'signature';

export class WebAuthnError extends Error {
  constructor(
    readonly reason: WebAuthnFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WebAuthnError';
  }
}

/** Throws `WebAuthnError(reason, message)` unless `condition` holds. */
export function check(condition: unknown, reason: WebAuthnFailure, message: string): asserts condition {
  if (!condition) throw new WebAuthnError(reason, message);
}
