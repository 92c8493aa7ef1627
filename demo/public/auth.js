// The pages' auth calls: one svc-auth/client instance (bundled by esbuild, served at /static/svc-client.js).
import { createPasskeys, createSvcClient, SvcError } from '/static/svc-client.js';

/** The pages' one client: cookie transport, the adapter mounted at /auth. */
export const client = createSvcClient({ baseUrl: '/auth' });
export const passkeys = createPasskeys(client);

/**
 * Awaits a client call and answers `{status, body}` as the pages branch on it:
 * 200 with the result, 204 for an empty answer, or the SvcError's status and envelope.
 */
export async function call(pending) {
  try {
    const body = await pending;
    return { status: body === null || body === undefined ? 204 : 200, body };
  } catch (e) {
    if (e instanceof SvcError) return { status: e.status, body: e.body ?? { error: e.code, message: e.message } };
    throw e;
  }
}
