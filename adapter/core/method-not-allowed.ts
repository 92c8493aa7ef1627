/**
 * 405 for a wrong method on a mounted path (issue 29 finding 7c), from the
 * route table, so a new route gets it without anyone remembering to.
 *
 * Each adapter registers, after every route of a table, one catch-all handler
 * per distinct path: a request that reached it matched the path but no route of
 * its method, and answers 405 `{error:"method_not_allowed"}` with `Allow`.
 * `OPTIONS` is left to the host application (its CORS preflight; no adapter
 * route answers it) and paths outside the table fall through as before. `HEAD`
 * of a GET path is served by the GET route (both frameworks do), so `Allow`
 * lists `HEAD` wherever it lists `GET`.
 */
import { failure, type HandlerResult } from './result.js';
import type { HttpMethod } from './route-table.js';

/** Methods a fallback hands on to the application instead of answering 405. */
export const HOST_METHODS: ReadonlySet<string> = new Set(['OPTIONS']);

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Two patterns can match one URL: same length, and each segment pair equal or one of them a `:param`. */
function overlap(a: string, b: string): boolean {
  const x = a.split('/');
  const y = b.split('/');
  return x.length === y.length && x.every((s, i) => s === y[i] || s.startsWith(':') || y[i]!.startsWith(':'));
}

/**
 * One fallback per distinct path of `routes`, with its `Allow` value: the
 * methods of every route whose pattern can match the same URLs (so a literal
 * path beside a `:param` sibling lists both), plus HEAD where GET is.
 */
export function methodFallbacks(routes: readonly { method: HttpMethod; path: string }[]): { path: string; allow: string }[] {
  const paths = [...new Set(routes.map((r) => r.path))];
  return paths.map((path) => {
    const methods = new Set<string>(routes.filter((r) => overlap(r.path, path)).map((r) => r.method));
    if (methods.has('GET')) methods.add('HEAD');
    return { path, allow: ORDER.filter((m) => methods.has(m)).join(', ') };
  });
}

/** The 405 answer (the API's envelope and message, `src/errors.ts`). */
export const methodNotAllowed = (allow: string): HandlerResult => failure(405, 'method_not_allowed', 'Method not allowed', { headers: { allow } });
