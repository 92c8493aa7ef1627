/** `requireOAuth` and `oauthProtectedResource` from svc-auth/express over a real port (scenarios shared with Hono). */
import express from 'express';
import { afterAll } from 'vitest';
import { oauthProtectedResource, protectedResourceMetadataPath, requireOAuth } from '../../../adapter/express/index.js';
import { resourceServerScenarios } from '../oauth-resource-scenarios.js';
import { closeServers, listen } from './harness.js';

afterAll(closeServers);

resourceServerScenarios('Express', async (opts) => {
  const app = express();
  app.get(protectedResourceMetadataPath(opts.resource), oauthProtectedResource(opts));
  app.get('/mcp', requireOAuth(opts), (req, res) => {
    res.json({ oauth: req.oauth });
  });
  const { base } = await listen(app);
  return { request: (path, init) => fetch(base + path, init), close: async () => {} };
});
