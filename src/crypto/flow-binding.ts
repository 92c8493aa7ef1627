/**
 * Flow bindings: a random value handed only to the browser or app
 * that started a flow, whose hash the flow keeps, so that only that caller can
 * finish it. OAuth login keeps the hash in its signed state; a `same_device`
 * magic link keeps it on its row. The adapter carries the value in a signed
 * HttpOnly cookie (adapter/core/handlers/flow-binding.ts).
 */
import { timingSafeEqual, toBase64Url } from '../../common/encoding.js';
import { sha256 } from './hash.js';
import { randomToken } from './random.js';

/** 256 bits: unguessable, so a flow can be left unspent after a wrong one. */
export const FLOW_BINDING_BYTES = 32;

/** What a flow stores: b64url(SHA-256(binding)), never the binding itself. */
export const flowBindingHash = (binding: string): string => toBase64Url(sha256(binding));

export const newFlowBinding = (): string => randomToken(FLOW_BINDING_BYTES);

/**
 * The presented binding against the stored hash, in constant time; nothing
 * stored, or a missing or empty binding, never matches.
 */
export function flowBindingMatchesHash(storedHash: string | null | undefined, binding: string | undefined): boolean {
  if (!binding || !storedHash) return false;
  return timingSafeEqual(flowBindingHash(binding), storedHash);
}
