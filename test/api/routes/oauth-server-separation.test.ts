import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { TOKEN_REQUESTS_PER_IP } from '../../../src/routes/oauth-server-tokens.js';
import {
  createOAuthClient,
  decodeJwt,
  formCall,
  makeProviderApi,
  obtainCode,
  redeem,
  signedInUser,
} from '../../helpers/oauth-server.js';

describe('the two kinds of token stay apart', () => {
  it("a provider access token is refused by the API's session auth (/users/me)", async () => {
    // Issuer of the provider = the API's own ISSUER: the strongest case (same iss and aud as a session token).
    const t = await makeProviderApi({ issuer: 'http://auth.test' });
    const client = await createOAuthClient(t);
    const { session } = await signedInUser(t);
    const { code, verifier } = await obtainCode(t, session, client, { scope: 'openid email' });
    const res = await redeem(t, client, code, verifier);
    expect(decodeJwt(res.body.access_token).payload.aud).toBe('http://auth.test');
    const me = await t.call('GET', '/users/me', { token: res.body.access_token });
    expect(me.status).toBe(401);
    expect((await t.call('GET', '/users/me', { token: res.body.id_token })).status).toBe(401);
    expect((await t.call('GET', '/users/me', { token: session.token })).status).toBe(200);
  });

  it('userinfo pins the header typ at+jwt and the signing key: the same claims as typ JWT or by another key are refused', async () => {
    const t = await makeProviderApi();
    const client = await createOAuthClient(t);
    const { session } = await signedInUser(t);
    const { code, verifier } = await obtainCode(t, session, client, { scope: 'openid email' });
    const good = (await redeem(t, client, code, verifier)).body.access_token as string;
    expect((await t.call('GET', '/oauth2/userinfo', { token: good })).status).toBe(200);
    const { payload } = decodeJwt(good);
    const keys = t.api.deps.keys;
    const asJwt = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: keys.activeKid })
      .sign(keys.privateKey);
    expect((await t.call('GET', '/oauth2/userinfo', { token: asJwt })).status).toBe(401);
    const foreign = await generateKeyPair('RS256');
    const forged = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: keys.activeKid })
      .sign(foreign.privateKey);
    expect((await t.call('GET', '/oauth2/userinfo', { token: forged })).status).toBe(401);
  });

  it('a session access token is refused by userinfo', async () => {
    const t = await makeProviderApi({ issuer: 'http://auth.test' });
    const { session } = await signedInUser(t);
    const res = await t.call('GET', '/oauth2/userinfo', { token: session.token });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_token');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });
});

describe('rate limit', () => {
  it('token requests per client IP are limited (429 rate_limited with Retry-After)', async () => {
    const t = await makeProviderApi();
    const fields = { grant_type: 'refresh_token', refresh_token: 'svc_rt_x', client_id: 'svc_ci_nope' };
    for (let i = 0; i < TOKEN_REQUESTS_PER_IP; i++) {
      const r = await formCall(t, '/oauth2/token', fields);
      if (r.status !== 401) throw new Error(`call ${i}: ${r.status}`);
    }
    const refused = await formCall(t, '/oauth2/token', fields);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 60_000);
});
