import { TrieRouter } from 'hono/router/trie-router';
import type { Router } from 'hono/router';
import { describe, expect, it, vi } from 'vitest';
import { memoRouter, ROUTER_MEMO_MAX_PATH_LENGTH } from '../../../src/http/memo-router.js';

/** The API's own shapes: static beside a parameter, nested parameters, a wildcard middleware. */
const ROUTES: [string, string, string][] = [
  ['ALL', '*', 'every request'],
  ['GET', '/organizations/invitations', 'my invitations'],
  ['GET', '/organizations/:organizationId', 'one organization'],
  ['POST', '/organizations/:organizationId/invitations', 'invite'],
  ['POST', '/organizations/invitations/:invitationId/accept', 'accept'],
  ['DELETE', '/admin/sessions/by-id/:id', 'revoke one'],
  ['DELETE', '/admin/sessions/:userId/revoke-all', 'revoke all'],
  ['GET', '/users/me', 'me'],
];
const PATHS: [string, string][] = [
  ['GET', '/organizations/invitations'],
  ['GET', '/organizations/org_1'],
  ['POST', '/organizations/org_1/invitations'],
  ['POST', '/organizations/invitations/inv_1/accept'],
  ['DELETE', '/admin/sessions/by-id/revoke-all'],
  ['DELETE', '/admin/sessions/u_1/revoke-all'],
  ['GET', '/users/me'],
  ['GET', '/nowhere'],
  ['PATCH', '/users/me'],
];

function built<T>(router: Router<T>, routes: [string, string, T][]): Router<T> {
  for (const [m, p, h] of routes) router.add(m, p, h);
  return router;
}

const handlersOf = (r: Router<string>, method: string, path: string) => r.match(method, path)[0].map(([h]) => h);

describe('memoRouter', () => {
  it('answers every path as the trie router does, the first time and when remembered', () => {
    const trie = built(new TrieRouter<string>(), ROUTES);
    const memo = built(memoRouter(new TrieRouter<string>()), ROUTES);
    for (const [m, p] of PATHS) {
      const expected = trie.match(m, p);
      expect(memo.match(m, p), `${m} ${p}`).toEqual(expected);
      expect(memo.match(m, p), `${m} ${p} again`).toEqual(expected);
    }
    // Both the static route and the parameter match; registration order decides, as before.
    expect(handlersOf(memo, 'GET', '/organizations/invitations')).toEqual([
      'every request',
      'my invitations',
      'one organization',
    ]);
  });

  it('walks the trie once per method and path', () => {
    const inner = built(new TrieRouter<string>(), ROUTES);
    const spy = vi.spyOn(inner, 'match');
    const memo = memoRouter(inner);
    for (let i = 0; i < 5; i++) memo.match('GET', '/users/me');
    memo.match('POST', '/users/me');
    memo.match('GET', '/organizations/org_2');
    expect(spy).toHaveBeenCalledTimes(3);
  });

  it('is bounded: invented paths evict each other, the oldest first', () => {
    const inner = built(new TrieRouter<string>(), ROUTES);
    const spy = vi.spyOn(inner, 'match');
    const memo = memoRouter(inner, 4);
    memo.match('GET', '/users/me');
    for (let i = 0; i < 100; i++) memo.match('GET', `/organizations/org_${i}`);
    spy.mockClear();
    memo.match('GET', '/users/me');
    expect(spy).toHaveBeenCalledTimes(1); // forgotten: at most two generations of 4 are held
    memo.match('GET', '/organizations/org_99');
    expect(spy).toHaveBeenCalledTimes(1); // the newest is still remembered
  });

  it('does not remember methods outside the usual ones (a request may send any token)', () => {
    const inner = built(new TrieRouter<string>(), ROUTES);
    const spy = vi.spyOn(inner, 'match');
    const memo = memoRouter(inner);
    for (let i = 0; i < 3; i++) memo.match(`X-${i}`, '/users/me');
    memo.match('X-0', '/users/me');
    expect(spy).toHaveBeenCalledTimes(4);
  });

  it('does not remember long paths: a request line may carry kilobytes of path an attacker chose', async () => {
    const inner = built(new TrieRouter<string>(), ROUTES);
    const spy = vi.spyOn(inner, 'match');
    const memo = memoRouter(inner);
    const long = `/organizations/${'x'.repeat(ROUTER_MEMO_MAX_PATH_LENGTH)}`;
    const atLimit = `/organizations/${'y'.repeat(ROUTER_MEMO_MAX_PATH_LENGTH - '/organizations/'.length)}`;
    for (let i = 0; i < 3; i++) {
      expect(handlersOf(memo, 'GET', long)).toEqual(['every request', 'one organization']);
      memo.match('GET', atLimit);
    }
    expect(spy.mock.calls.filter(([, p]) => p === long)).toHaveLength(3);
    expect(spy.mock.calls.filter(([, p]) => p === atLimit)).toHaveLength(1);
  });

  it('forgets its answers when a route is added', () => {
    const memo = built(memoRouter(new TrieRouter<string>()), ROUTES);
    expect(handlersOf(memo, 'GET', '/users/me/extra')).toEqual(['every request']);
    memo.add('GET', '/users/me/extra', 'extra');
    expect(handlersOf(memo, 'GET', '/users/me/extra')).toEqual(['every request', 'extra']);
  });
});
