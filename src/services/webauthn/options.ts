/**
 * Creation and request options JSON (WebAuthn L3 §5.4, §5.5, `toJSON()`
 * forms), field for field and in the order `@simplewebauthn/server` 13
 * produced them, so clients see the same bytes as before the library was
 * dropped (`test/api/services/webauthn-options.test.ts` compares the two).
 */
import { toBase64Url, utf8 } from '../../crypto/encoding.js';
import type { CredentialDescriptorJSON } from '../../crypto/webauthn/types.js';

export interface CredentialRef {
  id: string;
  transports: string[];
}

const descriptor = (c: CredentialRef): CredentialDescriptorJSON => ({ id: c.id, transports: c.transports, type: 'public-key' });

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

/** `PublicKeyCredentialCreationOptionsJSON` with `attestation: "none"` and UV required. */
export function creationOptions(input: CreationOptionsInput) {
  return {
    challenge: input.challenge,
    rp: { name: input.rpName, id: input.rpId },
    user: { id: toBase64Url(utf8(input.userId)), name: input.userName, displayName: input.userName },
    pubKeyCredParams: input.algorithms.map((alg) => ({ alg, type: 'public-key' as const })),
    timeout: input.timeout,
    attestation: 'none' as const,
    excludeCredentials: input.exclude.map(descriptor),
    authenticatorSelection: {
      residentKey: 'preferred' as const,
      userVerification: 'required' as const,
      ...(input.attachment ? { authenticatorAttachment: input.attachment } : {}),
      requireResidentKey: false,
    },
    extensions: input.extensions,
    hints: [] as string[],
  };
}

export interface RequestOptionsInput {
  rpId: string;
  challenge: string;
  timeout: number;
  allow: CredentialRef[];
  extensions?: Record<string, unknown> | undefined;
}

/** `PublicKeyCredentialRequestOptionsJSON` with UV required; `extensions` only when given. */
export function requestOptions(input: RequestOptionsInput) {
  const options = {
    rpId: input.rpId,
    challenge: input.challenge,
    allowCredentials: input.allow.map(descriptor),
    timeout: input.timeout,
    userVerification: 'required' as const,
  };
  return input.extensions ? { ...options, extensions: input.extensions } : options;
}
