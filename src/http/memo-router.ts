/**
 * The API's router: Hono's `TrieRouter` with its answers remembered per
 * method and path. The API's route table cannot use `RegExpRouter` (it
 * refuses a static segment beside a parameter where one path would reach two
 * endpoints, e.g. `/organizations/invitations` and
 * `/organizations/:organizationId`), so every request walked the trie and
 * sorted its handlers: 3–5% of the API's CPU on `GET /users/me`
 * (docs/performance.md). A request's matches depend on its method and path
 * only, and Hono only reads them, so the same answer is handed back. The memo
 * is bounded (two generations, `common/memo.ts`): paths an attacker invents
 * only evict each other, only the usual methods and paths of at most
 * `ROUTER_MEMO_MAX_PATH_LENGTH` characters are remembered (a request line may
 * carry kilobytes of path: held a thousand times over, that would be memory an
 * attacker chooses), and adding a route forgets everything.
 *
 * @example
 * const app = new Hono({ strict: false, router: memoRouter(new TrieRouter()) });
 */
import type { Result, Router } from 'hono/router';
import { generationalMemo, type GenerationalMemo } from '../../common/memo.js';

/** Paths remembered per method and generation (at most twice this many per method). */
export const ROUTER_MEMO_SIZE = 512;

/** Longer paths are matched each time; the API's own paths are far shorter (ids are 26–36 characters). */
export const ROUTER_MEMO_MAX_PATH_LENGTH = 256;

/** The methods remembered: a request may carry any token as its method, so others are matched each time. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function memoRouter<T>(inner: Router<T>, size = ROUTER_MEMO_SIZE): Router<T> {
  let byMethod = new Map<string, GenerationalMemo<string, Result<T>>>();
  return {
    name: `memo(${inner.name})`,
    add(method, path, handler) {
      byMethod = new Map();
      inner.add(method, path, handler);
    },
    match(method, path) {
      if (path.length > ROUTER_MEMO_MAX_PATH_LENGTH) return inner.match(method, path);
      let memo = byMethod.get(method);
      if (memo === undefined) {
        if (!METHODS.has(method)) return inner.match(method, path);
        memo = generationalMemo(size);
        byMethod.set(method, memo);
      }
      let result = memo.get(path);
      if (result === undefined) {
        result = inner.match(method, path);
        memo.set(path, result);
      }
      return result;
    },
  };
}
