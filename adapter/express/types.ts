/**
 * `req.user` for Express (contract §5.9): set by `requireAuth`. Declared the
 * way `@types/passport` declares it (`user?: Express.User`), with `User`
 * extended by the svc user, so both packages can be used together.
 */
import type { OAuthClaims } from '../core/oauth-resource.js';
import type { AuthUser } from '../core/user.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface User extends AuthUser {}
    interface Request {
      /** The signed-in user, set by `requireAuth` (cookie path: with `email`/`phone`; bearer path: without). */
      user?: User | undefined;
      /** The verified provider access token's claims, set by `requireOAuth`. */
      oauth?: OAuthClaims | undefined;
    }
  }
}

export type ExpressUser = Express.User;
