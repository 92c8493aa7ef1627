/** List paging (contract §0.5): `limit` 1–100 and `offset` ≥ 0 from the query string. */
import * as z from 'zod';

const int = z
  .string()
  .regex(/^\d{1,9}$/, 'must be a non-negative integer')
  .transform(Number);

/** `limit` (default `defaultLimit`, 1–100) and `offset` (default 0). */
export function pageQuery(defaultLimit = 50) {
  return {
    limit: int.pipe(z.number().min(1).max(100)).default(defaultLimit),
    offset: int.default(0),
  };
}

export interface Page {
  limit: number;
  offset: number;
}
