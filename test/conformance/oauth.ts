/** The OAuth round trip over HTTP: start on the API, login + consent at the real provider, callback on the API. */
import { call, expectOk, providerAuthorize, type Reply } from './client.js';

export async function oauthStart(body: Record<string, unknown> = {}, at?: string): Promise<Reply> {
  return call('POST', '/oauth/testop/start', { body }, at);
}

export async function oauthRoundTrip(accountId: string, at?: { start?: string; callback?: string }) {
  const start = await oauthStart({}, at?.start);
  expectOk(start);
  const { code, state } = await providerAuthorize(start.body.authorizationUrl, accountId);
  // The flow binding start returned: only its holder can finish the flow.
  const binding = start.body.binding as string;
  const callback = await call('POST', '/oauth/testop/callback', { body: { code, state, binding } }, at?.callback);
  return { start, code, state, binding, callback };
}
