/**
 * The confirmation a magic link needs before its poll may issue a session
 * (`magic_link_confirmation`). Anyone can ask for a link to someone
 * else's address; the confirmation ties the click to the tab that asked:
 *
 * - `number_match`: the asking tab shows a 2-digit number; the link's page
 *   offers three and the owner picks it. One guess per link: a wrong pick
 *   spends the link, so three choices give an unwitting click a 1-in-3 chance
 *   at most, once, and the owner sees who asked before choosing.
 * - `same_device`: the asking browser or app holds a 32-byte binding (the
 *   adapter keeps it in an HttpOnly cookie); only a verify that presents it
 *   completes the link.
 * - `none`: the original flow, any click completes it.
 */
import type { MagicLinkConfirmation } from '../../config/keys.js';
import { timingSafeEqual } from '../../../common/encoding.js';
import { flowBindingHash, flowBindingMatchesHash, newFlowBinding } from '../../crypto/flow-binding.js';
import { randomInt } from '../../crypto/random.js';

export const CONFIRMATION_MIN = 10;
export const CONFIRMATION_MAX = 99;
const CHOICE_COUNT = 3;

/** A uniform 2-digit number, 10–99. */
export const randomConfirmationNumber = (): number =>
  CONFIRMATION_MIN + randomInt(CONFIRMATION_MAX - CONFIRMATION_MIN + 1);

/** What the request answers (for real and decoy alike) and what the row keeps. */
export interface NewConfirmation {
  body: { confirmation: MagicLinkConfirmation; confirmationNumber?: number; binding?: string };
  row: { confirmation: MagicLinkConfirmation; confirmationNumber: number | null; bindingHash: string | null };
}

export function newConfirmation(mode: MagicLinkConfirmation): NewConfirmation {
  if (mode === 'number_match') {
    const n = randomConfirmationNumber();
    return {
      body: { confirmation: mode, confirmationNumber: n },
      row: { confirmation: mode, confirmationNumber: n, bindingHash: null },
    };
  }
  if (mode === 'same_device') {
    const binding = newFlowBinding();
    return {
      body: { confirmation: mode, binding },
      row: { confirmation: mode, confirmationNumber: null, bindingHash: flowBindingHash(binding) },
    };
  }
  return { body: { confirmation: mode }, row: { confirmation: mode, confirmationNumber: null, bindingHash: null } };
}

/** The right number and two other distinct 2-digit numbers, shuffled (Fisher–Yates). */
export function confirmationChoices(right: number): number[] {
  const choices = new Set([right]);
  while (choices.size < CHOICE_COUNT) choices.add(randomConfirmationNumber());
  const out = [...choices];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Constant time, though the number is low-entropy: its guess is single-use anyway. */
export const numberMatches = (stored: number | null, given: number): boolean =>
  stored !== null && timingSafeEqual(String(stored), String(given));

/** The presented binding against the link's stored hash (src/crypto/flow-binding.ts). */
export const bindingMatches = flowBindingMatchesHash;
