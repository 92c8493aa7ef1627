/**
 * The one error type of svc's WebAuthn glue. `reason` is a short, fixed code
 * for audit metadata (`webauthn_*_failed {reason}`); the message is static and
 * never echoes a client value (the library's messages do, so they are never
 * kept: `reasonOf` turns them into a reason and drops them).
 */
export type WebAuthnFailure =
  /** Not decodable: base64url, JSON, CBOR, authenticator data layout, a missing field. */
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
  /** The COSE key does not describe a usable public key (wrong sizes, point not on the curve, RSA < 2048 bits). */
  | 'public_key'
  /** Unknown `fmt`, a non-empty `none` statement, or an attestation statement the library did not verify. */
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

/**
 * @simplewebauthn/server 13 throws plain `Error`s whose messages name the
 * failed rule. Each pattern is anchored at the start of the message: the
 * client-controlled values the library quotes come later in it, so an origin
 * such as `https://challenge.example` cannot steer the reason. Order matters
 * only where prefixes overlap. `test/api/crypto/webauthn-*.test.ts` break
 * each rule on its own and pin the reason, so a library release that rewords
 * a message fails there instead of silently changing audit reasons.
 */
const LIBRARY_MESSAGES: readonly [RegExp, WebAuthnFailure][] = [
  [/^(Missing credential ID|Credential ID was not base64url-encoded)/, 'credential_id'],
  [/^Unexpected (registration|authentication) response type/, 'type'],
  [
    /^(Custom challenge verifier returned false|Unexpected (registration|authentication) response challenge)/,
    'challenge',
  ],
  [/^Unexpected (registration|authentication) response origin/, 'origin'],
  [/^Unexpected RP ID hash/, 'rp_id'],
  [/^(User presence was required|User not present)/, 'user_presence'],
  [/^User verification/, 'user_verification'],
  [/^Single-device credential indicated that it was backed up/, 'backup_flags'],
  [/^(Credential public key was missing numeric alg|Unexpected public key alg)/, 'algorithm'],
  [/^(Unsupported Attestation Format|None attestation had unexpected attestation statement)/, 'attestation'],
  [
    /^(Unexpected credential type|Credential missing response|Credential response |Unexpected value for TokenBinding|Unexpected tokenBinding|ClientDataJSON tokenBinding|Authenticator data was|Leftover bytes|Error decoding authenticator extensions|No credential ID was provided|No public key was provided|No AAGUID)/,
    'malformed',
  ],
  // @levischuck/tiny-cbor, the library's CBOR decoder.
  [
    /^(CBOR |Float16 data|Length not supported|No data$|Not implemented$|array is not supported|Map is not supported|Data was decoded, but|Unsupported or not well formed)/,
    'malformed',
  ],
];

/**
 * The reason for an error thrown while verifying a ceremony. `fallback` is the
 * reason for a library error no pattern names: what the ceremony checks last
 * (registration: the attestation statement and its certificates, whose
 * messages vary by format; authentication: the signature).
 */
export function reasonOf(err: unknown, fallback: WebAuthnFailure): WebAuthnFailure {
  if (err instanceof WebAuthnError) return err.reason;
  if (!(err instanceof Error)) return fallback;
  for (const [pattern, reason] of LIBRARY_MESSAGES) if (pattern.test(err.message)) return reason;
  // JSON.parse on clientDataJSON, a decoded value of the wrong type, absurd CBOR nesting (stack overflow).
  if (err instanceof SyntaxError || err instanceof TypeError || err instanceof RangeError) return 'malformed';
  return fallback;
}
