/** `requireOAuth` and `oauthProtectedResource` from svc-auth/hono (scenarios shared with Express). */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  oauthProtectedResource,
  protectedResourceMetadataPath,
  requireOAuth,
  type OAuthVariables,
} from '../../../adapter/hono/index.js';
import { resourceServerScenarios } from '../oauth-resource-scenarios.js';

resourceServerScenarios('Hono', async (opts) => {
  const app = new Hono<{ Variables: OAuthVariables }>();
  app.get(protectedResourceMetadataPath(opts.resource), oauthProtectedResource(opts));
  app.get('/mcp', requireOAuth(opts), (c) => c.json({ oauth: c.var.oauth }));
  return { request: async (path, init) => app.request(path, init), close: async () => {} };
});

describe('Hono requireOAuth options', () => {
  it('throws at construction naming the option', () => {
    expect(() => requireOAuth({ issuer: 'nope', resource: 'http://a.test/' })).toThrow(/`issuer`/);
    expect(() => requireOAuth({ issuer: 'http://a.test', resource: 'http://a.test/#x' })).toThrow(/`resource`/);
    expect(() => oauthProtectedResource({ issuer: 'http://a.test', resource: 'x' })).toThrow(/`resource`/);
    expect(() =>
      requireOAuth({ issuer: 'http://a.test', resource: 'http://b.test', resourceMetadataUrl: '/meta' }),
    ).toThrow(/`resourceMetadataUrl`/);
    expect(() => requireOAuth({ issuer: 'http://a.test', resource: 'http://b.test', scopes: ['a b'] })).toThrow(
      /`scopes`/,
    );
  });
});
