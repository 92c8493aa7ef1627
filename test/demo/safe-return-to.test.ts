/**
 * The demo sign-in page's `?return_to=` (demo/public/common.js `safeReturnTo`): the OAuth provider
 * sends a browser without a session to the sign-in page with the authorization request to resume.
 * Only a URL under the issuer (or a path of this origin) is followed: anything else would make the
 * sign-in page an open redirect that a phishing link could aim anywhere after a real sign-in.
 */
import { describe, expect, it } from 'vitest';

const ORIGIN = 'http://localhost:3000';
const ISSUER = `${ORIGIN}/auth`;
const modulePath: string = '../../demo/public/common.js';
const { safeReturnTo } = (await import(modulePath)) as {
  safeReturnTo: (target: string | null, origin: string, issuer: string | null) => string | null;
};

describe('demo safeReturnTo', () => {
  it('resumes an authorization request under the issuer, and same-origin paths', () => {
    const authorize = `${ISSUER}/oauth2/authorize?client_id=cl&state=s%20t&redirect_uri=https%3A%2F%2Frp.example%2Fcb`;
    expect(safeReturnTo(authorize, ORIGIN, ISSUER)).toBe(authorize);
    expect(safeReturnTo('/admin?tab=x', ORIGIN, ISSUER)).toBe(`${ORIGIN}/admin?tab=x`);
  });

  it.each([
    null,
    '',
    'https://evil.test/auth/oauth2/authorize',
    'http://localhost:3000.evil.test/auth/oauth2/authorize',
    'http://localhost:3000@evil.test/auth/oauth2/authorize',
    'http://localhost:3001/auth/oauth2/authorize',
    'https://localhost:3000/auth/oauth2/authorize',
    'http://localhost:3000/authx/oauth2/authorize',
    'http://localhost:3000/auth/../evil',
    'http://localhost:3000/auth',
    'javascript:alert(1)//http://localhost:3000/auth/',
    'data:text/html,<script>alert(1)</script>',
    '//evil.test/auth/oauth2/authorize',
    '/\\evil.test',
    'auth/oauth2/authorize',
  ])('refuses %j (open redirect)', (target) => {
    expect(safeReturnTo(target, ORIGIN, ISSUER)).toBeNull();
  });

  it('refuses every absolute URL when no issuer is configured', () => {
    expect(safeReturnTo(`${ISSUER}/oauth2/authorize`, ORIGIN, null)).toBeNull();
  });
});
