/** The fuzz properties themselves catch what they claim to (so a green fuzz run means something). */
import { describe, expect, it } from 'vitest';
import { brokenProperty, countDiff, fillPath, secretNeedles } from './properties.js';
import { TEST_SERVICE_TOKEN } from '../helpers/make-app.js';
import type { Harness } from '../adapter/helpers.js';
import { strayUpstream } from './adapter-target.js';

const json = (status: number, body: unknown) => ({
  status,
  text: JSON.stringify(body),
  contentType: 'application/json; charset=utf-8',
});

describe('fuzz properties', async () => {
  const needles = await secretNeedles();

  it('accept a 4xx envelope and a 2xx body', () => {
    expect(brokenProperty(json(400, { error: 'invalid_request', message: 'x' }), needles)).toBeNull();
    expect(brokenProperty(json(404, { error: 'not_found' }), needles)).toBeNull();
    expect(brokenProperty(json(200, { ok: true }), needles)).toBeNull();
  });

  it.each([
    ['a 5xx', json(500, { error: 'internal_error', message: 'Internal server error' }), /^5xx/],
    ['a non-JSON 4xx', { status: 400, text: 'Bad Request', contentType: 'text/plain' }, /not JSON/],
    ['an empty 431', { status: 431, text: '', contentType: null }, /not JSON/],
    ['a camelCase code', json(400, { error: 'invalidRequest' }), /snake_case/],
    ['a missing code', json(401, { message: 'no' }), /snake_case/],
    ['a non-string message', json(401, { error: 'unauthorized', message: 1 }), /message/],
    ['an HTML content type', { ...json(400, { error: 'invalid_request' }), contentType: 'text/html' }, /content-type/],
    [
      'a stack frame',
      json(400, { error: 'invalid_request', message: 'Error: x\n    at parse (file:///app/src/a.ts:1:2)' }),
      /stack trace/,
    ],
    ['the service token', json(200, { t: TEST_SERVICE_TOKEN }), /secret/],
    ['a PEM header', json(200, { k: '-----BEGIN PRIVATE KEY-----' }), /secret/],
  ])('flag %s', (_name, answer, why) => {
    expect(brokenProperty(answer, needles)).toMatch(why);
  });

  it('flag a row count change and fill path parameters', () => {
    expect(countDiff({ users: 1, sessions: 2 }, { users: 1, sessions: 2 })).toBeNull();
    expect(countDiff({ users: 1, sessions: 2 }, { users: 1, sessions: 3 })).toMatch(/sessions 2→3/);
    expect(fillPath('/a/:x/b/:y', ['%2F', '..'])).toBe('/a/%2F/b/..');
  });

  it('flag an upstream call that left its route', () => {
    const h = (paths: string[]) =>
      ({
        upstream: paths.map((p) => ({
          method: p.split(' ')[0],
          path: p.split(' ')[1],
          headers: new Headers(),
          body: undefined,
        })),
      }) as unknown as Harness;
    expect(
      strayUpstream(
        h(['DELETE /sessions/..%2Fadmin', 'POST /refresh', 'GET /.well-known/jwks.json']),
        0,
        'DELETE',
        '/sessions/:id',
      ),
    ).toBeNull();
    expect(strayUpstream(h(['DELETE /admin/users/x']), 0, 'DELETE', '/sessions/:id')).toMatch(/left the route/);
    expect(strayUpstream(h(['DELETE /sessions/a/b']), 0, 'DELETE', '/sessions/:id')).toMatch(/left the route/);
  });
});
