/** The admin API's view of a client: everything but the secret hash (a secret is shown once, on create and rotate). */
import type { OAuthClientRow } from '../../../db/schema.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function clientJson(row: OAuthClientRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    redirectUris: row.redirectUris,
    scopes: row.scopes,
    grantTypes: row.grantTypes,
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod,
    clientUri: row.clientUri ?? null,
    registration: row.registration,
    skipConsent: row.skipConsent,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    lastUsedAt: iso(row.lastUsedAt),
  };
}
export type ClientJson = ReturnType<typeof clientJson>;
