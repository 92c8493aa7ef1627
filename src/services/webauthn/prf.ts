/**
 * PRF extension policy (contract §3.6): the server passes PRF inputs (salts,
 * base64url) through to the authenticator, records PRF capability at
 * registration, and refuses any request that carries PRF outputs — derived
 * keys belong to the client and never reach the server.
 */
import { fail } from '../../errors.js';

export interface PrfInput {
  salt: string;
  secondSalt?: string | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** True when `clientExtensionResults.prf.results` is present (any value). */
export function carriesPrfOutput(clientExtensionResults: unknown): boolean {
  if (!isObject(clientExtensionResults)) return false;
  const prf = clientExtensionResults['prf'];
  return isObject(prf) && prf['results'] !== undefined;
}

export function assertNoPrfOutput(clientExtensionResults: unknown): void {
  if (carriesPrfOutput(clientExtensionResults)) throw fail('prf_output_not_allowed');
}

/** `clientExtensionResults.prf.enabled === true` at registration. */
export function reportsPrfEnabled(clientExtensionResults: unknown): boolean {
  if (!isObject(clientExtensionResults)) return false;
  const prf = clientExtensionResults['prf'];
  return isObject(prf) && prf['enabled'] === true;
}

/** Request-options extension for an assertion that evaluates the PRF. */
export function prfEvalExtension(prf: PrfInput) {
  return { prf: { eval: { first: prf.salt, ...(prf.secondSalt ? { second: prf.secondSalt } : {}) } } };
}
