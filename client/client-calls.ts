/**
 * One call of a `createSvcClient` client (client.ts): the route's credential
 * per transport, and what each kind of answer changes in the client's state
 * (tokens, session, the bindings of flows under way).
 */
import { challengeHeaders, type ChallengeTokenProvider } from './challenge.js';
import { invalidResponse, isObject, SvcError } from './errors.js';
import { fillPath, queryString, type Answer } from './http.js';
import { FIELD_RULES, ROUTE_KEYS, type RouteName } from './routes.js';
import type { SessionControl } from './session.js';
import { tokensFrom, userFrom, type BearerAuth, type StoredTokens } from './tokens.js';
import { checkInput } from './validate.js';

/** A route as the adapter's route table describes it: the credential it takes and the kind of its answer. */
export type Kind = { cred: string; response: string };

export type Send = (
  method: string,
  path: string,
  authorization: string | null,
  body: unknown,
  idempotencyKey?: string,
  /** Extra request headers (the bot-protection token). */
  extra?: Record<string, string>,
) => Promise<Answer>;

/** What the calls of one client share: its transport and the state of its flows under way. */
export interface ClientContext {
  readonly bearer: boolean;
  readonly now: () => number;
  /** The mounted routes by `METHOD /path`. */
  readonly index: ReadonlyMap<string, Kind>;
  readonly session: SessionControl;
  readonly auth: BearerAuth;
  readonly send: Send;
  /** `POST /refresh` with the refresh token (bearer) or none (cookie); one `Idempotency-Key` per attempt. */
  readonly sendRefresh: (refreshToken: string | null) => Promise<Answer>;
  /** Bearer transport: the pre-auth token of the sign-in under way. */
  ephemeral: string | null;
  /** Bearer transport: flow bindings of OAuth flows started and not yet finished, by state. */
  readonly oauthBindings: Map<string, string>;
  /** same_device (bearer): the binding of this client's pending magic link. */
  magicLinkBinding: string | null;
  /** Bot protection: the app's token source for the guarded calls. */
  readonly challengeToken?: ChallengeTokenProvider | undefined;
}

/** One typed client method: checks the input, sends it with the route's credential and applies the answer. */
export async function call(ctx: ClientContext, name: RouteName, input: unknown): Promise<unknown> {
  const key = ROUTE_KEYS[name];
  const space = key.indexOf(' ');
  const method = key.slice(0, space);
  const template = key.slice(space + 1);
  const kind = ctx.index.get(key);
  if (!kind) throw new TypeError(`${name}: route ${key} is not mounted by the adapter`);
  if (kind.response === 'oauth-callback') input = withOAuthBinding(ctx, input);
  const { path, rest } = fillPath(template, checkArgs(name, template, input));
  if (kind.response === 'magic-verify' && ctx.magicLinkBinding && rest['binding'] === undefined)
    rest['binding'] = ctx.magicLinkBinding;
  if (kind.response === 'refresh') return refreshCall(ctx);
  const body = method === 'GET' ? undefined : rest;
  const url = method === 'GET' ? path + queryString(rest) : path;
  let answer;
  try {
    answer =
      kind.cred === 'access'
        ? await withAccess(ctx, method, url, body, kind.response === 'bridge')
        : await ctx.send(
            method,
            url,
            kind.cred === 'none' ? null : ctx.ephemeral,
            body,
            undefined,
            await challengeHeaders(ctx.challengeToken, name),
          );
  } catch (e) {
    // Signing out without a live session is done, not an error (contract §5.3: logout is idempotent).
    const dead = e instanceof SvcError && (e.status === 401 || e.code === 'signed_out');
    if (kind.response !== 'logout' || !dead) throw e;
    answer = { status: 204, body: null };
  }
  return afterAnswer(ctx, kind.response, answer.body);
}

/** `refresh()`: bearer rotates its stored tokens (single-flight); cookie lets the adapter rotate its cookies. */
async function refreshCall(ctx: ClientContext): Promise<unknown> {
  if (ctx.bearer) {
    await ctx.auth.load();
    return publicSession(await ctx.auth.refresh(), ctx.now());
  }
  try {
    return await sessionResult(ctx, (await ctx.sendRefresh(null)).body);
  } catch (e) {
    if (e instanceof SvcError && e.status === 401) ctx.session.signedOut('invalid_refresh_token');
    throw e;
  }
}

/**
 * A call that needs the access token: cookie transport lets the adapter
 * refresh; bearer refreshes itself once after a 401.
 */
async function withAccess(
  ctx: ClientContext,
  method: string,
  path: string,
  body: unknown,
  bridge: boolean,
): Promise<Answer> {
  const { send } = ctx;
  if (!ctx.bearer) {
    try {
      return await send(method, path, null, body);
    } catch (e) {
      if (!(e instanceof SvcError) || e.status !== 401) throw e;
      // The TOTP bridge never refreshes (§5.12): `me` lets ensureCookies refresh, then one retry.
      if (bridge) return send('GET', '/users/me', null, undefined).then(() => send(method, path, null, body));
      ctx.session.signedOut('unauthorized');
      throw e;
    }
  }
  const token = await ctx.auth.accessToken();
  try {
    return await send(method, path, token, body);
  } catch (e) {
    if (!(e instanceof SvcError) || e.status !== 401) throw e;
    return send(method, path, await ctx.auth.afterUnauthorized(token), body);
  }
}

/**
 * Bearer transport: the callback carries the binding its start returned (kept here by state);
 * an app that persisted it across a restart passes `binding` itself. Cookie transport: the
 * adapter reads its cookie and ignores any body binding, so nothing is added.
 */
function withOAuthBinding(ctx: ClientContext, input: unknown): unknown {
  if (!ctx.bearer || !isObject(input) || typeof input['state'] !== 'string') return input;
  const kept = ctx.oauthBindings.get(input['state']);
  ctx.oauthBindings.delete(input['state']);
  return input['binding'] === undefined && kept !== undefined ? { ...input, binding: kept } : input;
}

async function afterAnswer(
  ctx: ClientContext,
  response: string,
  body: Record<string, unknown> | null,
): Promise<unknown> {
  switch (response) {
    case 'login':
    case 'register':
    case 'ephemeral-renew':
      return afterPreAuthStep(ctx, body);
    case 'session':
    case 'magic-check':
    case 'oauth-callback':
      return sessionResult(ctx, body);
    case 'oauth-start':
      keepOAuthBinding(ctx, body);
      return body;
    case 'magic-request':
      // same_device in bearer transport: this client asked, so this client's verify carries the binding.
      ctx.magicLinkBinding = ctx.bearer && typeof body?.['binding'] === 'string' ? body['binding'] : null;
      return body;
    case 'me':
      return afterMe(ctx, body);
    case 'logout':
    case 'delete-user':
      if (ctx.bearer) await ctx.auth.clear(response === 'logout' ? 'logout' : 'user_deleted');
      else ctx.session.signedOut(response === 'logout' ? 'logout' : 'user_deleted');
      return response === 'logout' ? undefined : body;
    case 'org-switch':
      return afterOrganizationSwitch(ctx, body);
    default:
      return body;
  }
}

/** Bearer transport keeps the pre-auth token for the next step; neither transport returns it. */
function afterPreAuthStep(ctx: ClientContext, body: Record<string, unknown> | null) {
  if (ctx.bearer) {
    if (!body || typeof body['token'] !== 'string') throw invalidResponse(200, 'pre-auth step without a token');
    ctx.ephemeral = body['token'];
  }
  return without(body, 'token');
}

/** A session answer: an MFA step keeps its pre-auth token; a session signs in (bearer stores its tokens). */
async function sessionResult(ctx: ClientContext, body: Record<string, unknown> | null) {
  if (!body) return null;
  if (body['mfaRequired'] === true) {
    if (ctx.bearer) {
      if (typeof body['token'] !== 'string') throw invalidResponse(200, 'MFA step without a token');
      ctx.ephemeral = body['token'];
    }
    return without(body, 'token');
  }
  if (typeof body['sub'] !== 'string') throw invalidResponse(200, 'session without sub');
  ctx.ephemeral = null;
  if (ctx.bearer) await ctx.auth.replace(tokensFrom(body, ctx.now()));
  else
    ctx.session.signedIn(
      userFrom(body, body['sub']),
      typeof body['organizationId'] === 'string' ? body['organizationId'] : null,
    );
  return without(body, 'token', 'refreshToken');
}

function keepOAuthBinding(ctx: ClientContext, body: Record<string, unknown> | null): void {
  if (!ctx.bearer || !body || typeof body['state'] !== 'string' || typeof body['binding'] !== 'string') return;
  // A few pending flows at most; the oldest goes first (a state lives 10 minutes anyway).
  if (ctx.oauthBindings.size >= 16) ctx.oauthBindings.delete(ctx.oauthBindings.keys().next().value!);
  ctx.oauthBindings.set(body['state'], body['binding']);
}

function afterMe(ctx: ClientContext, body: Record<string, unknown> | null) {
  const user = body?.['user'];
  if (!isObject(user) || typeof user['id'] !== 'string') throw invalidResponse(200, '`me` without a user');
  const org = user['activeOrganizationId'];
  if (!ctx.bearer) ctx.session.signedIn(userFrom(user, user['id']), typeof org === 'string' ? org : null);
  return body;
}

/** Bearer transport swaps in the new access token; cookie transport updates the session from the answer. */
async function afterOrganizationSwitch(ctx: ClientContext, body: Record<string, unknown> | null) {
  const cur = ctx.auth.current();
  if (ctx.bearer && cur) {
    if (!body || typeof body['token'] !== 'string' || typeof body['ttl'] !== 'number')
      throw invalidResponse(200, 'switch without a token');
    const organizationId = typeof body['organizationId'] === 'string' ? body['organizationId'] : null;
    const ttlMs = body['ttl'] * 1000;
    await ctx.auth.replace({
      ...cur,
      accessToken: body['token'],
      accessExpiresAtMs: ctx.now() + ttlMs,
      accessTtlMs: ttlMs,
      organizationId,
    });
  } else if (!ctx.bearer && body && typeof body['sub'] === 'string') {
    ctx.session.signedIn(
      userFrom(body, body['sub']),
      typeof body['organizationId'] === 'string' ? body['organizationId'] : null,
    );
  }
  return without(body, 'token');
}

const without = (body: Record<string, unknown> | null, ...keys: string[]) => {
  if (!body) return body;
  const out = { ...body };
  for (const k of keys) delete out[k];
  return out;
};

/** The session fields of a stored record (what `refresh()` resolves with in bearer transport; tokens stay inside). */
function publicSession(t: StoredTokens, nowMs: number) {
  const seconds = (atMs: number) => Math.max(0, Math.round((atMs - nowMs) / 1000));
  return {
    message: 'Success',
    sub: t.user.id,
    sessionId: t.sessionId,
    organizationId: t.organizationId,
    roles: t.user.roles,
    email: t.user.email,
    phone: t.user.phone,
    ttl: seconds(t.accessExpiresAtMs),
    refreshTtl: seconds(t.refreshExpiresAtMs),
  };
}

const checkArgs = (name: RouteName, template: string, input: unknown) =>
  checkInput(name, template, input, FIELD_RULES[name] as Readonly<Record<string, string>> | undefined);
