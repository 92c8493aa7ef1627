/**
 * Credential classes (contract §0.3, §3.x "Cred" columns, §3.14 access rules,
 * §5.3) and the status each principal gets from one. A row names its class;
 * the expected answer per principal is derived here, with per-row overrides
 * where the contract says otherwise.
 */
import { grants, type PrincipalId, type PrincipalSpec } from './principals.js';

export type Gate =
  /** No credential. */
  | 'none'
  /** `E:login`, `E:reg`, `E:mfa`: an ephemeral token of that ctx. */
  | 'ephemeral:login'
  | 'ephemeral:registration'
  | 'ephemeral:mfa'
  /** `R`: the opaque refresh token. */
  | 'refresh'
  /** `A`. */
  | 'access'
  /** `A +SU?`: fresh step-up when the user has a passkey or TOTP (§3.6). */
  | 'access+step-up-if-capable'
  /** `A+r`, `A+w`, `A+w +SU`. */
  | 'admin:read'
  | 'admin:write'
  | 'admin:write+step-up'
  /**
   * §3.14: read (`organization:read`, manager, `admin:read`), list members (`members:read`, …), manager (owner/admin,
   * `admin:write`), member (switch).
   */
  | 'org:read'
  | 'org:members'
  | 'org:manager'
  | 'org:member'
  /**
   * §3.8 logout: an access token; logout is idempotent, so a token whose
   * session or account is already dead gets 200 too.
   */
  | 'logout'
  /**
   * §5.3 adapter logout: it clears the cookies and answers 204 whatever the API said (an upstream 401 is
   * "already logged out"), so any principal passes; only a bearer-transport call without a bearer is 401.
   */
  | 'adapter-logout';

/**
 * Ids of the shared fixtures (principals.ts `World`): the target organization, a user no principal is, its session and
 * passkey, and an id of nothing.
 */
export interface Ids {
  org: string;
  victim: string;
  victimSession: string;
  victimCredential: string;
  /** A pending invitation of the target organization addressed to the victim's verified email. */
  victimInvitation: string;
  missing: string;
}

export interface Outcome {
  status: number;
  error?: string;
  message?: string;
  required?: string[];
}

/** Either the principal passes the gate, or the contract's refusal. */
export type Expected = { pass: true } | { refuse: Outcome };

/** Where the request goes: the API (bearer), an adapter in one transport, or an HTML console page. */
export interface SurfaceKind {
  /** Cookie transport reads credentials from cookies; a missing one is the adapter's own 401. */
  cookie: boolean;
}

export interface Row {
  gate: Gate;
  /**
   * Path parameter values: a key of `Ids` (`org`, `victim`, `victimSession`,
   * `victimCredential`, `victimInvitation`, `missing`) or a literal.
   */
  params?: Record<string, string>;
  /** Query string (without `?`). */
  query?: string;
  /**
   * Request body for non-GET requests (`{}` when absent); a function for ids and values that must be unique per call.
   */
  body?: unknown | ((ids: Ids) => unknown);
  /**
   * The exact answer for every principal that passes the gate, where the target belongs to someone else:
   * another user's session or passkey must stay "not found" (no IDOR), not merely "past the gate".
   */
  passAs?: Outcome;
  /**
   * Error codes the route answers *after* the gate (a failed code, no
   * passkey…): 401/403 with these still count as "passed the gate".
   */
  after?: string[];
  /** The route spends its caller (logout, refresh rotation, account deletion): every cell mints its own principal. */
  fresh?: boolean;
  /** Answers the contract gives instead of the derived one. */
  overrides?: Partial<Record<PrincipalId, Expected>>;
  /**
   * An open authorization defect: the listed principals get `observed` instead of the contract's answer.
   * Reported by the test and by `npm run authz-matrix`, and the test fails once the defect is fixed.
   */
  knownDefect?: {
    principals: PrincipalId[];
    transports?: ('api' | 'cookie' | 'bearer')[];
    observed: Outcome;
    note: string;
  };
  /** HTML answers (console pages): refusals are compared by status only, and a pass must be below 400. */
  html?: boolean;
  /** Cookie transport only (the admin console): a bearer-transport call is refused 401 whoever sends it. */
  cookieOnly?: boolean;
  /**
   * Console API routes check twice: the console's own role gate on the cookie's claims (requireRole semantics,
   * §5.9), then the API's gate (`gate`) on the user row (§0.3). They differ only for a principal whose token
   * roles are stale (`tokenRoles`); for everyone else `gate` is already the stricter of the two.
   */
  consoleGate?: Gate;
  /** With `consoleGate`: the API's own gate behind the console. */
  apiGate?: Gate;
  /** What differs when the route is reached through an adapter (both transports); the contract's §5.3 says where. */
  adapter?: Partial<Omit<Row, 'adapter'>>;
}

const UNAUTHORIZED: Outcome = { status: 401, error: 'unauthorized' };
const refuse = (o: Outcome): Expected => ({ refuse: o });
const PASS: Expected = { pass: true };
const forbidden = (role: string) => refuse({ status: 403, error: 'forbidden', required: [role] });
const STEP_UP = refuse({ status: 403, error: 'step_up_required' });
const HIDDEN = refuse({ status: 404, error: 'not_found', message: 'Organization not found' });

/** The answer the contract gives `p` on a route of class `gate`. */
export function expectedFor(row: Row, id: PrincipalId, spec: PrincipalSpec, surface: SurfaceKind): Expected {
  const override = row.overrides?.[id];
  if (override) return override;
  const gate = row.gate;
  if (gate === 'none') return PASS;
  // The console reads cookies whatever the transport header says; a principal that sends none is refused.
  if (row.cookieOnly && !surface.cookie && !spec.bearerOf) return refuse(UNAUTHORIZED);
  // A principal with cookies and someone else's bearer is its cookies in cookie transport, the bearer elsewhere.
  const p = spec.bearerOf && !surface.cookie && !row.cookieOnly ? spec.bearerOf : spec;
  if (row.consoleGate && p.tokenRoles) {
    const own = expectedFor(
      { gate: row.consoleGate },
      id,
      { ...p, roles: p.tokenRoles, tokenRoles: undefined },
      surface,
    );
    if ('refuse' in own) return own;
    return expectedFor(
      { ...row, gate: row.apiGate ?? row.gate, consoleGate: undefined },
      id,
      { ...p, tokenRoles: undefined },
      surface,
    );
  }
  if (gate === 'logout') return p.kind === 'access' ? PASS : refuse(UNAUTHORIZED);
  if (gate === 'adapter-logout')
    return surface.cookie || p.kind !== 'none' || p.serviceAsBearer ? PASS : refuse(UNAUTHORIZED);
  if (gate === 'ephemeral:login' || gate === 'ephemeral:registration' || gate === 'ephemeral:mfa') {
    // §0.3: login and registration tokens of a missing or revoked subject continue as the decoy; mfa needs a live user.
    const live = !p.dead || gate !== 'ephemeral:mfa';
    return p.kind === 'ephemeral' && `ephemeral:${p.ctx}` === gate && live ? PASS : refuse(UNAUTHORIZED);
  }
  if (gate === 'refresh') {
    // A dead session's refresh token is refused by the API, whichever transport carried it.
    if (p.dead && p.kind === 'access') return refuse({ status: 401, error: 'invalid_refresh_token' });
    if (p.kind === 'access') return PASS;
    // A bearer that is not a refresh token is an unknown refresh token; no
    // bearer (or no refresh cookie) is unauthorized.
    const presentsBearer = p.kind === 'ephemeral' || p.serviceAsBearer;
    return refuse(presentsBearer && !surface.cookie ? { status: 401, error: 'invalid_refresh_token' } : UNAUTHORIZED);
  }
  if (p.kind !== 'access' || p.dead) return refuse(UNAUTHORIZED);
  switch (gate) {
    case 'access':
      return PASS;
    case 'access+step-up-if-capable':
      return p.passkey && !p.steppedUp ? STEP_UP : PASS;
    case 'admin:read':
    case 'admin:write':
      return grants(p, gate) ? PASS : forbidden(gate);
    case 'admin:write+step-up':
      return !grants(p, 'admin:write') ? forbidden('admin:write') : p.steppedUp ? PASS : STEP_UP;
    case 'org:read':
      return p.org === 'member' || p.org === 'owner' || grants(p, 'admin:read') ? PASS : HIDDEN;
    case 'org:members':
      return p.org === 'member' || p.org === 'owner' || grants(p, 'admin:read') ? PASS : HIDDEN;
    case 'org:manager':
      return p.org === 'owner' || grants(p, 'admin:write') ? PASS : HIDDEN;
    case 'org:member':
      return p.org === 'member' || p.org === 'bare-member' || p.org === 'owner' ? PASS : HIDDEN;
  }
  throw new Error(`unknown gate ${gate satisfies never}`);
}

const REFUSALS = new Set([
  'unauthorized',
  'forbidden',
  'step_up_required',
  'cross_site_request_blocked',
  'invalid_refresh_token',
]);

/** True when `o` is what the contract expects; for a pass, the answer must not be a refusal of this gate. */
export function matches(row: Row, expected: Expected, o: Outcome): boolean {
  if ('refuse' in expected) {
    const want = expected.refuse;
    if (row.html) return o.status === want.status;
    if (o.status !== want.status || o.error !== want.error) return false;
    if (want.message !== undefined && o.message !== want.message) return false;
    return want.required === undefined || JSON.stringify(o.required) === JSON.stringify(want.required);
  }
  if (row.passAs) return matches({ ...row, passAs: undefined }, { refuse: row.passAs }, o);
  if (o.status >= 500 || (row.html && o.status >= 400)) return false;
  // A 404 without a resource message is the app's "no such route": the request never reached the gate.
  if (o.status === 404 && o.error === 'not_found' && (o.message === undefined || o.message === 'Not found'))
    return false;
  if (o.status === 401 || o.status === 403)
    return !!o.error && !REFUSALS.has(o.error) && (row.after ?? []).includes(o.error);
  if (o.status === 404 && row.gate.startsWith('org:') && o.message === 'Organization not found') return false;
  return true;
}

export const describeExpected = (e: Expected, row?: Row): string =>
  'pass' in e
    ? row?.passAs
      ? `passes the gate: ${describeExpected({ refuse: row.passAs })}`
      : 'passes the gate'
    : `${e.refuse.status}${e.refuse.error ? ` ${e.refuse.error}` : ''}${e.refuse.required ? ` ${JSON.stringify(e.refuse.required)}` : ''}${e.refuse.message ? ` "${e.refuse.message}"` : ''}`;

export const describeOutcome = (o: Outcome) =>
  `${o.status}${o.error ? ` ${o.error}` : ''}${o.required ? ` ${JSON.stringify(o.required)}` : ''}${o.message && o.status === 404 ? ` "${o.message}"` : ''}`;
