/**
 * An MCP server on Cloudflare Workers, protected by svc as its OAuth
 * authorization server: `requireOAuth` checks the provider's access tokens
 * for this server's resource URL, and the RFC 9728 metadata at
 * `/.well-known/oauth-protected-resource/mcp` tells MCP clients where to get
 * one (discovery → dynamic registration → PKCE in the browser → tokens).
 * The MCP side is the official TypeScript SDK's `McpServer` over its
 * Web-standard Streamable HTTP transport, stateless (a server per request,
 * JSON answers), so it runs on workerd, Node, Bun and Deno alike.
 *
 *   npx wrangler dev -c examples/mcp-workers/wrangler.toml
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import * as z from 'zod';
import {
  oauthProtectedResource,
  protectedResourceMetadataPath,
  requireOAuth,
  type OAuthClaims,
  type OAuthResourceOptions,
  type OAuthVariables,
} from '../../adapter/hono/index.js';

export interface McpEnv {
  /** svc's `oauth_server.issuer`: the public URL of the adapter mount, e.g. `https://app.example/auth`. */
  ISSUER: string;
  /** This server's resource URL (its MCP endpoint), listed in `oauth_server.resources`. */
  RESOURCE: string;
  /** The scope a token needs (default `mcp:tools`). */
  SCOPE?: string;
  /** Optional service binding to the worker serving the issuer, for the JWKS (no public hop). */
  AUTH?: { fetch: (input: string, init?: RequestInit) => Promise<Response> };
}

/** The MCP server for one request: two tools, the second one reading who called. */
function mcpServer(caller: OAuthClaims): McpServer {
  const server = new McpServer({ name: 'svc-example-mcp', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'whoami',
    { description: 'Says which user and which client called, with which scopes' },
    async () => ({
      content: [
        { type: 'text', text: JSON.stringify({ user: caller.sub, client: caller.clientId, scopes: caller.scopes }) },
      ],
    }),
  );
  return server;
}

/** The Hono app; `createMcpApp(env)` also runs on Node under `@hono/node-server`. */
export function createMcpApp(env: McpEnv): Hono<{ Variables: OAuthVariables }> {
  const auth = env.AUTH;
  const oauth: OAuthResourceOptions = {
    issuer: env.ISSUER,
    resource: env.RESOURCE,
    scopes: [env.SCOPE ?? 'mcp:tools'],
    resourceName: 'svc example MCP server',
    ...(auth ? { fetch: (input: string, init?: RequestInit) => auth.fetch(input, init) } : {}),
  };
  const path = new URL(env.RESOURCE).pathname;
  const app = new Hono<{ Variables: OAuthVariables }>();
  // Browser-based MCP clients read the 401's WWW-Authenticate and the metadata cross-origin.
  app.use(
    '*',
    cors({
      origin: '*',
      allowHeaders: ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'],
      exposeHeaders: ['www-authenticate', 'mcp-session-id'],
    }),
  );
  app.get('/', (c) => c.text(`svc example MCP server: ${env.RESOURCE}`));
  app.get(protectedResourceMetadataPath(env.RESOURCE), oauthProtectedResource(oauth));
  app.use(path, requireOAuth(oauth));
  app.post(path, async (c) => {
    const claims = c.var.oauth;
    const token = c.req.header('authorization')!.slice('Bearer '.length).trim();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined, // stateless: nothing to keep between requests on Workers
      enableJsonResponse: true,
    });
    const server = mcpServer(claims);
    await server.connect(transport);
    return transport.handleRequest(c.req.raw, {
      authInfo: {
        token,
        clientId: claims.clientId,
        scopes: claims.scopes,
        expiresAt: claims.expiresAt,
        resource: new URL(env.RESOURCE),
      },
    });
  });
  // Stateless: no server-initiated stream and no session to end.
  app.on(['GET', 'DELETE'], path, (c) =>
    c.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed' }, id: null }, 405, {
      allow: 'POST',
    }),
  );
  return app;
}

let app: ReturnType<typeof createMcpApp> | null = null;

export default {
  fetch(request: Request, env: McpEnv, ctx: Parameters<ReturnType<typeof createMcpApp>['fetch']>[2]) {
    app ??= createMcpApp(env);
    return app.fetch(request, env, ctx);
  },
};
