/**
 * Turns the response zod schemas into OpenAPI components, once per document
 * build: every PascalCase export of `src/http/responses/*` becomes
 * `#/components/schemas/<ExportName>`, and the error table of `src/errors.ts`
 * becomes one error response per status.
 */
import * as z from 'zod/mini';
import { ERRORS, type ErrorCode } from '../errors.js';
import * as account from '../http/responses/account.js';
import * as admin from '../http/responses/admin.js';
import * as adapter from '../http/responses/adapter.js';
import * as common from '../http/responses/common.js';
import * as session from '../http/responses/session.js';
import * as webhooks from '../http/responses/webhooks.js';
import * as oauthClients from '../http/responses/oauth-clients.js';

export type JsonSchema = Record<string, unknown>;

export const schemaRef = (id: string) => `#/components/schemas/${id}`;

/**
 * The one place a route answers with a status other than the table's: a failed
 * (or already used) TOTP code, or a failed recovery code, on a pre-auth `verify-login` is 401
 * (contract §0.4, "401 / 403"; docs/recovery-codes.md).
 */
const EXTRA_STATUS_CODES: Record<number, ErrorCode[]> = {
  401: ['totp_verification_failed', 'totp_code_already_used', 'recovery_code_invalid'],
};

/** Codes a document adds to the API's table (the adapter's own failures), by status. */
export type ExtraCodes = Record<number, readonly string[]>;

/** The error codes a status can carry. */
export function codesForStatus(status: number, extra: ExtraCodes = {}): string[] {
  const codes = (Object.keys(ERRORS) as ErrorCode[]).filter((c) => ERRORS[c][0] === status);
  return [...codes, ...(EXTRA_STATUS_CODES[status] ?? []), ...(extra[status] ?? [])];
}

export const errorStatuses = (extra: ExtraCodes = {}): number[] =>
  [...new Set([...Object.values(ERRORS).map(([s]) => s as number), ...Object.keys(extra).map(Number)])].sort(
    (a, b) => a - b,
  );

/** Drops the per-schema `$schema`/`$id` that zod writes: inside a document they would re-base references. */
export function clean(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

export interface Components {
  registry: z.core.$ZodRegistry<{ id: string }>;
  schemas: Record<string, JsonSchema>;
  /** A `$ref` for a registered schema, else the schema inline (`io` picks request or response side). */
  toSchema(schema: z.ZodMiniType, io: 'input' | 'output'): JsonSchema;
}

export function buildComponents(extra: ExtraCodes = {}): Components {
  const registry = z.registry<{ id: string }>();
  // Sorted: a module namespace's key order differs between loaders (Node sorts it, vite-node does not).
  const named = [common, session, account, admin, adapter, webhooks, oauthClients]
    .flatMap((mod) => Object.entries(mod))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, value] of named) {
    if (value instanceof z.ZodMiniType && /^[A-Z]/.test(name)) value.register(registry, { id: name });
  }
  const out = z.toJSONSchema(registry, { uri: schemaRef, io: 'output', unrepresentable: 'any' }) as {
    schemas: Record<string, JsonSchema>;
  };
  const schemas: Record<string, JsonSchema> = {};
  for (const [id, s] of Object.entries(out.schemas)) schemas[id] = clean(s);
  for (const status of errorStatuses(extra)) {
    schemas[`Error${status}`] = {
      allOf: [
        { $ref: schemaRef('ErrorEnvelope') },
        { type: 'object', properties: { error: { enum: codesForStatus(status, extra) } } },
      ],
    };
  }
  const toSchema = (schema: z.ZodMiniType, io: 'input' | 'output'): JsonSchema => {
    const id = registry.get(schema)?.id;
    if (id) return { $ref: schemaRef(id) };
    return clean(z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema);
  };
  return { registry, schemas, toSchema };
}

/** Statuses whose answer carries `Retry-After` (contract §0.2: 423 and 429; 503 from the busy database). */
const RETRY_AFTER_STATUSES = [423, 429, 503];

/** `Error<status>` responses: the envelope with the codes of that status. */
export function errorResponses(extra: ExtraCodes = {}): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const status of errorStatuses(extra)) {
    out[`Error${status}`] = {
      description: `Error envelope; \`error\` is one of ${codesForStatus(status, extra)
        .map((c) => `\`${c}\``)
        .join(', ')}.`,
      ...(RETRY_AFTER_STATUSES.includes(status)
        ? {
            headers: {
              'Retry-After': {
                description: 'Seconds to wait before retrying (contract §0.2).',
                schema: { type: 'integer', minimum: 0 },
              },
            },
          }
        : {}),
      content: { 'application/json': { schema: { $ref: schemaRef(`Error${status}`) } } },
    };
  }
  return out;
}

/**
 * Keeps only the component schemas a document reaches from its paths and responses (each document lists what it uses).
 */
export function reachableSchemas(all: Record<string, JsonSchema>, roots: unknown[]): Record<string, JsonSchema> {
  const keep = new Set<string>();
  const pending = [...roots];
  while (pending.length) {
    const text = JSON.stringify(pending.pop());
    for (const m of text.matchAll(/"#\/components\/schemas\/([A-Za-z0-9_]+)"/g)) {
      const id = m[1]!;
      if (!keep.has(id) && all[id]) {
        keep.add(id);
        pending.push(all[id]);
      }
    }
  }
  return Object.fromEntries(Object.entries(all).filter(([id]) => keep.has(id)));
}
