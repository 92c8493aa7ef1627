/**
 * The demo login page's `?next=` handling (demo/public/common.js `safeNextPath`):
 * only targets on the page's own origin survive. Browsers parse `/\host`,
 * `/<tab>/host` and the resolved `//host` as another host, so a prefix check
 * (`startsWith('/') && !startsWith('//')`) was an open redirect.
 */
import { describe, expect, it } from 'vitest';

const ORIGIN = 'http://localhost:3000';
const modulePath: string = '../../demo/public/common.js';
const { safeNextPath } = (await import(modulePath)) as {
  safeNextPath: (next: string | null, origin: string) => string;
};

/** Where the browser goes: `location.assign(target)` resolves against the page. */
const landing = (next: string | null) => new URL(safeNextPath(next, ORIGIN), ORIGIN);

describe('demo safeNextPath', () => {
  it('keeps same-origin paths with query and fragment', () => {
    expect(landing('/admin?tab=users#top').href).toBe(`${ORIGIN}/admin?tab=users#top`);
    expect(landing('/app').href).toBe(`${ORIGIN}/app`);
  });

  it.each([
    null,
    '',
    'https://evil.test/',
    '//evil.test',
    '/\\evil.test',
    '/\t/evil.test',
    '/\n/evil.test',
    '/\\/evil.test',
    '/..//evil.test',
    'javascript:alert(1)',
  ])('never leaves the origin for %j', (next) => {
    const url = landing(next);
    expect(url.origin).toBe(ORIGIN);
    // Assigning the returned value again (e.g. after a reload) must not leave either.
    expect(new URL(url.href, ORIGIN).origin).toBe(ORIGIN);
  });

  it('falls back to /app for anything that is not a path', () => {
    for (const next of [null, '', 'https://evil.test/', 'javascript:alert(1)', '/\\evil.test'])
      expect(landing(next).pathname).toBe('/app');
  });
});
