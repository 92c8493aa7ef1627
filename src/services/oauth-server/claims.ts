/** OpenID Connect Core §5.4: the user claims each scope releases (ID token and userinfo). */
import type { UserRow } from '../../db/schema.js';

export function claimsForScopes(user: UserRow, scopes: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (scopes.includes('email')) {
    out['email'] = user.email;
    out['email_verified'] = user.emailVerified;
  }
  if (scopes.includes('phone') && user.phone) {
    out['phone_number'] = user.phone;
    out['phone_number_verified'] = user.phoneVerified;
  }
  // svc keeps no name; `updated_at` is the one profile claim it has.
  if (scopes.includes('profile')) out['updated_at'] = Math.floor(user.updatedAt.getTime() / 1000);
  return out;
}
