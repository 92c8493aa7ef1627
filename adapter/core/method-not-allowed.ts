/**
 * 405 for a wrong method on a mounted path, from the
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
import type { HttpMethod } from '../../common/route-table.js';

/** Methods a fallback hands on to the application instead of answering 405. */
export const HOST_METHODS: ReadonlySet<string> = new Set(['OPTIONS']);

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

const segmentsOf = (path: string): string[] => path.slice(1).split('/');

/** A pattern matches a URL's trailing segments: same count, each literal equal (`:param` matches any). */
function matches(pattern: readonly string[], url: readonly string[]): boolean {
  return pattern.every((s, i) => s.startsWith(':') || s === url[i]);
}

/**
 * One fallback per distinct path of `routes`. `allow(urlPath)` answers with
 * the methods of every route whose pattern matches that URL (a literal path
 * and a `:param` sibling can both match one URL; two patterns that merely
 * overlap as patterns do not share methods), plus HEAD where GET is. It is
 * computed from the request's own path because the fallback that catches a
 * URL is the first registered one whose pattern matches, which need not be
 * the route the URL was meant for. `urlPath` may carry the mount prefix: only
 * its trailing segments are compared.
 */
export function methodFallbacks(
  routes: readonly { method: HttpMethod; path: string }[],
): { path: string; allow: (urlPath: string) => string }[] {
  const compiled = routes.map((r) => ({ method: r.method, segments: segmentsOf(r.path) }));
  const paths = [...new Set(routes.map((r) => r.path))];
  return paths.map((path) => {
    const count = segmentsOf(path).length;
    const allow = (urlPath: string): string => {
      const url = segmentsOf(urlPath.startsWith('/') ? urlPath : `/${urlPath}`).slice(-count);
      const methods = new Set<string>(
        compiled.filter((r) => r.segments.length === count && matches(r.segments, url)).map((r) => r.method),
      );
      if (methods.has('GET')) methods.add('HEAD');
      return ORDER.filter((m) => methods.has(m)).join(', ');
    };
    return { path, allow };
  });
}

/** The 405 answer (the API's envelope and message, `src/errors.ts`). */
export const methodNotAllowed = (allow: string): HandlerResult =>
  failure(405, 'method_not_allowed', 'Method not allowed', { headers: { allow } });
