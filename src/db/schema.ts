/**
 * Every table of contract §2. SQL names are snake_case (drizzle `casing`),
 * TS properties are their camelCase form. Timestamps are epoch milliseconds.
 *
 * The tables live in `src/db/schema/` by domain; this barrel re-exports every
 * table and row type (and nothing else: `client.ts` hands this module to
 * drizzle as the schema, and drizzle-kit reads it through `drizzle.config.ts`),
 * so importers keep importing `db/schema.js`.
 */
export * from './schema/users.js';
export * from './schema/organizations.js';
export * from './schema/organization-invitations.js';
export * from './schema/sessions.js';
export * from './schema/events.js';
export * from './schema/config.js';
export * from './schema/recovery-codes.js';
export * from './schema/contact-changes.js';
export * from './schema/webhooks.js';
export * from './schema/oauth-provider.js';
