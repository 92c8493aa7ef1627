/**
 * Schema validation (contract §0.4 step 7): failures answer 400
 * `invalid_request` with `details.issues` naming paths only, never values.
 */
import type { Context } from 'hono';
import type * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { safeParse } from '../safe-parse.js';

function invalid(error: z.core.$ZodError) {
  return fail('invalid_request', 'Request failed schema validation.', {
    details: {
      issues: error.issues.map((i) => ({
        path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
        code: i.code,
        message: i.message,
      })),
    },
  });
}

/** Parses the JSON body (`{}` when absent) or throws 400 `invalid_request`. */
export function parseBody<S extends z.core.$ZodType>(c: Context<AppEnv>, schema: S): z.output<S> {
  const result = safeParse(schema, c.get('body') ?? {});
  if (!result.success) throw invalid(result.error);
  return result.data;
}

/** Parses the query string; repeated keys become arrays. */
export function parseQuery<S extends z.core.$ZodType>(c: Context<AppEnv>, schema: S): z.output<S> {
  const raw: Record<string, string | string[]> = {};
  for (const [k, values] of Object.entries(c.req.queries())) raw[k] = values.length === 1 ? values[0]! : values;
  const result = safeParse(schema, raw);
  if (!result.success) throw invalid(result.error);
  return result.data;
}
