/**
 * The console's guard: `requireAuth` + `requireRole` semantics through the
 * adapter core (the signed access cookie, the scoped-role rules), plus the
 * transparent refresh of ensureCookies, so a console left open for longer
 * than an access token's lifetime keeps working instead of answering 401.
 */
import type { AdapterCore } from '../core/core.js';
import { decodeJsonSegment } from '../../common/encoding.js';
import { ensureCookies } from '../core/ensure-cookies.js';
import { roleFailure } from '../core/guards.js';
import { failure, type HandlerResult, type SetCookieCommand } from '../core/result.js';
import type { ClientInfo } from '../core/upstream.js';
import type { AuthUser } from '../core/user.js';

export interface ConsoleSession {
  /** The RS256 access token (sent to the API as the admin's bearer). */
  token: string;
  userId: string;
  email: string | null;
  roles: string[];
  canWrite: boolean;
  /** Cookies to set when the session was refreshed on this request. */
  setCookies: SetCookieCommand[];
}

export type SessionOutcome = { ok: true; session: ConsoleSession } | { ok: false; result: HandlerResult };

/**
 * Resolves the admin's session from the cookies and checks `required`
 * (`admin:read` for pages and reads, `admin:write` for writes).
 */
export async function consoleSession(
  core: AdapterCore,
  cookies: Record<string, string>,
  client: ClientInfo,
  required: string,
): Promise<SessionOutcome> {
  const ensured = await ensureCookies(core, 'access', cookies, client);
  if (!ensured.ok) return ensured;
  if (!ensured.token) return { ok: false, result: failure(401, 'unauthorized', 'Authentication required') };
  // The token came from a verified cookie or from the API's own refresh answer, so its payload is trusted as is.
  const claims = decodeJsonSegment(ensured.token.split('.')[1] ?? '') ?? {};
  const roles = Array.isArray(claims['roles'])
    ? (claims['roles'] as unknown[]).filter((r): r is string => typeof r === 'string')
    : [];
  const userId = typeof claims['sub'] === 'string' ? claims['sub'] : (ensured.sub ?? '');
  const asUser = {
    id: userId,
    sub: userId,
    roles,
    organizationId: null,
    sessionId: '',
    token: ensured.token,
  } satisfies AuthUser;
  const refused = roleFailure(asUser, [required]);
  if (refused)
    return { ok: false, result: { status: refused.status, body: refused.body, setCookies: ensured.setCookies } };
  const cookie = core.codec.verify(cookies[core.opts.names.access], 'access', core.now());
  const email = cookie && typeof cookie.email === 'string' ? cookie.email : null;
  return {
    ok: true,
    session: {
      token: ensured.token,
      userId,
      email,
      roles,
      canWrite: roleFailure(asUser, ['admin:write']) === null,
      setCookies: ensured.setCookies,
    },
  };
}

/**
 * Pages ask the API who the admin is now (the authorization matrix):
 * the signed cookie alone would keep serving the console to a signed-out,
 * revoked or demoted admin until the access token expired. The roles are the
 * user row's (contract §0.3), so a demotion takes effect on the next page.
 * Fails closed: an API that does not answer gives the 502 page.
 */
export async function confirmLiveSession(
  core: AdapterCore,
  session: ConsoleSession,
  client: ClientInfo,
  required: string,
): Promise<HandlerResult | null> {
  const res = await core.call({ method: 'GET', path: '/users/me', authorization: `Bearer ${session.token}`, client });
  if (!res.ok) return failure(502, 'upstream_unavailable', 'Auth server unreachable');
  if (res.status === 401) return failure(401, 'unauthorized', 'Authentication required');
  const user =
    res.status === 200 && res.body && typeof res.body === 'object'
      ? (res.body as { user?: { roles?: unknown } }).user
      : undefined;
  if (!user) return failure(502, 'upstream_error', 'Unexpected response from auth server');
  const roles = Array.isArray(user.roles) ? user.roles.filter((r): r is string => typeof r === 'string') : [];
  const refused = roleFailure(
    { id: session.userId, sub: session.userId, roles, organizationId: null, sessionId: '', token: session.token },
    [required],
  );
  return refused ? { status: refused.status, body: refused.body } : null;
}
