/**
 * Schema validation (contract §0.4 step 7): failures answer 400
 * `invalid_request` with `details.issues` naming paths only, never values.
 */
import type { Context } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';

function invalid(error: z.ZodError) {
  return fail('invalid_request', 'Request failed schema validation.', {
    details: {
      issues: error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), code: i.code, message: i.message })),
    },
  });
}

/** Parses the JSON body (`{}` when absent) or throws 400 `invalid_request`. */
export function parseBody<S extends z.ZodType>(c: Context<AppEnv>, schema: S): z.infer<S> {
  const result = schema.safeParse(c.get('body') ?? {});
  if (!result.success) throw invalid(result.error);
  return result.data;
}

/** Parses the query string; repeated keys become arrays. */
export function parseQuery<S extends z.ZodType>(c: Context<AppEnv>, schema: S): z.infer<S> {
  const raw: Record<string, string | string[]> = {};
  for (const [k, values] of Object.entries(c.req.queries())) raw[k] = values.length === 1 ? values[0]! : values;
  const result = schema.safeParse(raw);
  if (!result.success) throw invalid(result.error);
  return result.data;
}
