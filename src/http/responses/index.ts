/** Every response schema of the auth API (and the adapter's projections of them). */
export * from './account.js';
export * from './adapter.js';
export * from './admin.js';
export * from './common.js';
export * from './invitations.js';
export * from './session.js';
export * from './recovery-codes.js';
