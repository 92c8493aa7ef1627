/** List paging (contract §0.5): `limit` 1–100 and `offset` ≥ 0 from the query string. */
import * as z from 'zod/mini';

const int = z.pipe(z.string().check(z.regex(/^\d{1,9}$/, 'must be a non-negative integer')), z.transform(Number));

/** `limit` (default `defaultLimit`, 1–100) and `offset` (default 0). */
export function pageQuery(defaultLimit = 50) {
  return {
    limit: z._default(z.pipe(int, z.number().check(z.gte(1), z.lte(100))), defaultLimit),
    offset: z._default(int, 0),
  };
}

export interface Page {
  limit: number;
  offset: number;
}
