/**
 * Admin management of the provider's clients (docs/oauth-provider.md,
 * "Clients"): create (a confidential client's secret is returned this once),
 * list, read, patch, delete, rotate the secret. Only the secret's hash is
 * stored. Every write is audited (`oauth_client_*` events); no event, list or
 * log carries a secret.
 */
import type { Deps } from '../../../deps.js';
import { fail } from '../../../errors.js';
import { hashOAuthSecret, newOAuthClientId, newOAuthSecret } from '../../../crypto/oauth-server.js';
import {
  deleteOAuthClient,
  findOAuthClient,
  insertOAuthClient,
  listOAuthClients,
  updateOAuthClient,
} from '../../../repositories/oauth-clients.js';
import type { OAuthClientRow } from '../../../db/schema.js';
import type { ActorFields } from '../../events/actor.js';
import {
  allowedScopes,
  authMethodFits,
  redirectUrisProblem,
  unique,
  unknownScopes,
  type AuthMethod,
  type ClientType,
  type GrantType,
} from './rules.js';
import { clientJson } from './serialize.js';

type AdminDeps = Pick<Deps, 'db' | 'clock' | 'env' | 'events' | 'config'>;
/** The acting admin, or the command line (no user, no session). */
type Actor = Omit<ActorFields, 'actorUserId' | 'sessionId'> & { actorUserId: string | null; sessionId: string | null };

/** A validated create body (the route's schema checked types and lengths). */
export interface ClientInput {
  name: string;
  type: ClientType;
  redirectUris: string[];
  scopes: string[];
  grantTypes?: GrantType[] | undefined;
  tokenEndpointAuthMethod?: AuthMethod | undefined;
  clientUri?: string | null | undefined;
  skipConsent?: boolean | undefined;
}

export type ClientPatch = Partial<Omit<ClientInput, 'type'>>;

/** `invalid_request` naming one field, as schema failures do. */
function invalid(path: (string | number)[], message: string) {
  return fail('invalid_request', 'Request failed schema validation.', {
    details: { issues: [{ path, code: 'custom', message }] },
  });
}

async function checkRules(deps: AdminDeps, type: ClientType, fields: ClientPatch): Promise<void> {
  if (fields.redirectUris) {
    const problem = redirectUrisProblem(fields.redirectUris, type, deps.env.production);
    if (problem) throw invalid(['redirectUris', problem.index], problem.message);
  }
  if (fields.scopes) {
    const unknown = unknownScopes(fields.scopes, allowedScopes((await deps.config.get()).oauth_server, 'admin'));
    if (unknown.length)
      throw invalid(['scopes'], `unknown scope ${JSON.stringify(unknown[0])}: add it to oauth_server.scopes first`);
  }
  if (fields.grantTypes && !fields.grantTypes.includes('authorization_code'))
    throw invalid(['grantTypes'], 'must include authorization_code');
  if (fields.tokenEndpointAuthMethod && !authMethodFits(type, fields.tokenEndpointAuthMethod))
    throw invalid(
      ['tokenEndpointAuthMethod'],
      type === 'public' ? 'a public client uses none' : 'a confidential client uses client_secret_basic or _post',
    );
  if (fields.clientUri) {
    const problem = clientUriProblem(fields.clientUri, deps.env.production);
    if (problem) throw invalid(['clientUri'], problem);
  }
}

/** The client's home page, shown as a link on the consent page: https (http outside production). */
export function clientUriProblem(value: string, production: boolean): string | null {
  try {
    const url = new URL(value);
    if (url.username || url.password) return 'must not contain credentials';
    if (url.protocol === 'https:' || (!production && url.protocol === 'http:')) return null;
  } catch {
    // falls through
  }
  return production ? 'must be an absolute https URL' : 'must be an absolute http(s) URL';
}

async function mustFind(deps: AdminDeps, clientId: string): Promise<OAuthClientRow> {
  const row = await findOAuthClient(deps.db, clientId);
  if (!row) throw fail('oauth_client_not_found');
  return row;
}

export async function createClient(deps: AdminDeps, body: ClientInput, actor: Actor) {
  await checkRules(deps, body.type, body);
  const id = newOAuthClientId();
  const secret = body.type === 'confidential' ? newOAuthSecret('client-secret') : null;
  const now = new Date(deps.clock.now());
  await insertOAuthClient(deps.db, {
    id,
    name: body.name,
    type: body.type,
    secretHash: secret ? hashOAuthSecret('client-secret', secret) : null,
    tokenEndpointAuthMethod: body.tokenEndpointAuthMethod ?? (body.type === 'public' ? 'none' : 'client_secret_basic'),
    redirectUris: unique(body.redirectUris),
    scopes: unique(body.scopes),
    grantTypes: unique(body.grantTypes ?? ['authorization_code', 'refresh_token']),
    clientUri: body.clientUri ?? null,
    registration: 'admin',
    skipConsent: body.skipConsent ?? false,
    createdBy: actor.actorUserId,
    createdAt: now,
    updatedAt: now,
  });
  const client = clientJson(await mustFind(deps, id));
  await deps.events.record({
    type: 'oauth_client_created',
    userId: actor.actorUserId,
    ...actor,
    metadata: { clientId: id, name: client.name, clientType: client.type, redirectUris: client.redirectUris },
  });
  return secret ? { client, clientSecret: secret } : { client };
}

export async function listClients(
  deps: AdminDeps,
  page: { limit: number; offset: number; registration?: 'admin' | 'dynamic' | undefined },
) {
  const { rows, total } = await listOAuthClients(deps.db, page);
  return { clients: rows.map(clientJson), total };
}

export async function readClient(deps: AdminDeps, clientId: string) {
  return { client: clientJson(await mustFind(deps, clientId)) };
}

export async function patchClient(deps: AdminDeps, clientId: string, body: ClientPatch, actor: Actor) {
  const before = await mustFind(deps, clientId);
  const changedFields = Object.keys(body).filter((k) => body[k as keyof ClientPatch] !== undefined);
  if (!changedFields.length) throw fail('no_changes');
  await checkRules(deps, before.type, body);
  // Anyone on the internet may have registered a dynamic client: it always shows the consent page.
  if (body.skipConsent && before.registration === 'dynamic')
    throw invalid(['skipConsent'], 'a dynamically registered client always asks for consent');
  await updateOAuthClient(deps.db, clientId, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.redirectUris ? { redirectUris: unique(body.redirectUris) } : {}),
    ...(body.scopes ? { scopes: unique(body.scopes) } : {}),
    ...(body.grantTypes ? { grantTypes: unique(body.grantTypes) } : {}),
    ...(body.tokenEndpointAuthMethod ? { tokenEndpointAuthMethod: body.tokenEndpointAuthMethod } : {}),
    ...(body.clientUri !== undefined ? { clientUri: body.clientUri } : {}),
    ...(body.skipConsent !== undefined ? { skipConsent: body.skipConsent } : {}),
    updatedAt: new Date(deps.clock.now()),
  });
  const client = clientJson(await mustFind(deps, clientId));
  await deps.events.record({
    type: 'oauth_client_updated',
    userId: actor.actorUserId,
    ...actor,
    metadata: { clientId, changedFields },
  });
  return { client };
}

export async function deleteClient(deps: AdminDeps, clientId: string, actor: Actor) {
  const existing = await mustFind(deps, clientId);
  // Consents, grants, codes and refresh tokens go with it (ON DELETE CASCADE): nothing it issued may be refreshed.
  if (!(await deleteOAuthClient(deps.db, clientId))) throw fail('oauth_client_not_found');
  await deps.events.record({
    type: 'oauth_client_deleted',
    userId: actor.actorUserId,
    ...actor,
    metadata: { clientId, name: existing.name, registration: existing.registration },
  });
  return { message: 'Success' as const };
}

/** A new secret, returned once; the old one stops working at once (a leaked secret is the reason to rotate). */
export async function rotateClientSecret(deps: AdminDeps, clientId: string, actor: Actor) {
  const existing = await mustFind(deps, clientId);
  if (existing.type !== 'confidential') throw fail('oauth_client_not_confidential');
  const secret = newOAuthSecret('client-secret');
  await updateOAuthClient(deps.db, clientId, {
    secretHash: hashOAuthSecret('client-secret', secret),
    updatedAt: new Date(deps.clock.now()),
  });
  await deps.events.record({
    type: 'oauth_client_secret_rotated',
    userId: actor.actorUserId,
    ...actor,
    metadata: { clientId },
  });
  return { client: clientJson(await mustFind(deps, clientId)), clientSecret: secret };
}
