/** Organization slugs (contract §2.4): normalisation and collision suffixes. */
import type { Db } from '../../db/client.js';
import { slugsLike } from '../../repositories/organizations.js';

export const SLUG_MAX_LENGTH = 80;

/**
 * Lower-case, accents folded, runs of non-alphanumerics → `-`, edge dashes
 * trimmed, at most 80 characters; empty becomes `organization-<ms>`.
 */
export function normalizeSlug(raw: string, nowMs: number): string {
  const slug = raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/, '');
  return slug || `organization-${nowMs}`;
}

/** `base`, or `base-<n>` for n = 2, 3, … (the base shortened so the result stays ≤ 80). */
export function slugCandidate(base: string, n: number): string {
  if (n < 2) return base;
  const suffix = `-${n}`;
  return `${base.slice(0, SLUG_MAX_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
}

/** The first suffix number whose candidate is not taken yet (the insert still guards races). */
export async function firstFreeSuffix(db: Db, base: string, ownSlug?: string): Promise<number> {
  const taken = new Set(await slugsLike(db, base));
  if (ownSlug) taken.delete(ownSlug);
  let n = 1;
  while (taken.has(slugCandidate(base, n))) n = n < 2 ? 2 : n + 1;
  return n;
}
