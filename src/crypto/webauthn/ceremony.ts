/**
 * The checks registration and authentication share (WebAuthn L3 §7.1 steps
 * 5–16, §7.2 steps 7–18): the credential's `id`/`rawId`/`type`, the client
 * data (type, challenge, origin), and the authenticator data's RP ID hash,
 * UP/UV and backup flags. Order follows the specification, so the first
 * broken rule names the failure.
 */
import { timingSafeEqual, toHex, utf8 } from '../encoding.js';
import { sha256 } from '../hash.js';
import { decodeB64url, parseClientData, type AuthenticatorData } from './authenticator-data.js';
import { check } from './errors.js';
import type { CredentialDeviceType } from './types.js';

/** What the relying party expects of a ceremony. */
export interface CeremonyExpectations {
  /** The challenge as issued (base64url string, compared in constant time). */
  challenge: string;
  /** Accepted `clientDataJSON.origin` values, exact match (web and `android:apk-key-hash:` origins). */
  origins: readonly string[];
  /** The RP ID whose SHA-256 must be the authenticator data's `rpIdHash`. */
  rpId: string;
}

/** `id` present and equal to `rawId`, `type` is `public-key` (as `@simplewebauthn/server` checked). */
export function checkCredentialEnvelope(response: { id?: unknown; rawId?: unknown; type?: unknown }): void {
  check(typeof response.id === 'string' && response.id.length > 0, 'credential_id', 'credential id is missing');
  check(response.id === response.rawId, 'credential_id', 'credential id and rawId differ');
  check(response.type === 'public-key', 'malformed', 'credential type is not public-key');
}

/**
 * Checks `clientDataJSON` for the ceremony `type` and returns its bytes and
 * their SHA-256 (the `clientDataHash` signatures cover).
 */
export function checkClientData(encoded: unknown, type: 'webauthn.create' | 'webauthn.get', expected: CeremonyExpectations): { clientDataHash: Uint8Array } {
  const bytes = decodeB64url(encoded, 'clientDataJSON');
  const clientData = parseClientData(bytes);
  check(clientData.type === type, 'type', 'clientDataJSON.type is not the expected ceremony');
  check(timingSafeEqual(clientData.challenge, expected.challenge), 'challenge', 'clientDataJSON.challenge is not the issued challenge');
  check(expected.origins.includes(clientData.origin), 'origin', 'clientDataJSON.origin is not an accepted origin');
  return { clientDataHash: sha256(bytes) };
}

/**
 * RP ID hash, user presence, user verification (always required by svc) and
 * the backup flags → `{deviceType, backedUp}` (L3 §6.1.3: BS without BE is invalid).
 */
export function checkAuthenticatorData(authData: AuthenticatorData, expected: CeremonyExpectations): { deviceType: CredentialDeviceType; backedUp: boolean } {
  check(toHex(authData.rpIdHash) === toHex(sha256(utf8(expected.rpId))), 'rp_id', 'rpIdHash is not SHA-256 of the RP ID');
  check(authData.flags.up, 'user_presence', 'the user was not present');
  check(authData.flags.uv, 'user_verification', 'the user was not verified');
  check(authData.flags.be || !authData.flags.bs, 'backup_flags', 'backup state set on a credential that is not backup eligible');
  return { deviceType: authData.flags.be ? 'multiDevice' : 'singleDevice', backedUp: authData.flags.bs };
}
