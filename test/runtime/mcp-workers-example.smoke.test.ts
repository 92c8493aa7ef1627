/**
 * examples/mcp-workers: the MCP server behind `requireOAuth`, driven by the
 * official MCP SDK client, on Node (in process) and on workerd (`wrangler
 * dev`). The tokens are RFC 9068 access tokens signed by a test key whose
 * JWKS a local HTTP server publishes under the issuer, as svc's adapter does;
 * the full provider flow (discovery, registration, browser consent) is the
 * end-to-end test `test/e2e/oauth-mcp.e2e.test.ts`.
 */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpApp } from '../../examples/mcp-workers/app.js';
import { ROOT, freePort, removeDir, startWranglerDev, tempDir, waitForHttp, type Spawned } from './processes.js';

let keys: Awaited<ReturnType<typeof generateKeyPair>>;
let jwksServer: Server;
let issuer = '';

beforeAll(async () => {
  keys = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwksServer = createServer((req, res) => {
    if (req.url !== '/auth/.well-known/jwks.json') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(jwksServer.address() as { port: number }).port}/auth`;
});
afterAll(() => new Promise<void>((r) => jwksServer.close(() => r())));

const accessToken = (resource: string, claims: Record<string, unknown> = {}, typ = 'at+jwt') =>
  new SignJWT({ client_id: 'mcp-client', scope: 'mcp:tools', ...claims })
    .setProtectedHeader({ alg: 'RS256', typ, kid: 'k1' })
    .setIssuer(issuer)
    .setSubject('user-42')
    .setAudience((claims.aud as string) ?? resource)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(keys.privateKey);

/** The scenarios, against an MCP server whose resource URL is `resource`, reached through `fetchFn`. */
function scenarios(ctx: { resource: string; fetchFn: typeof fetch }) {
  const connect = async (token: string) => {
    const client = new Client({ name: 'svc-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(ctx.resource), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: ctx.fetchFn,
    });
    await client.connect(transport);
    return client;
  };

  it('lists and calls the tools with a token for this resource', async () => {
    const client = await connect(await accessToken(ctx.resource));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['add', 'whoami']);
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(sum.content).toEqual([{ type: 'text', text: '42' }]);
    const who = await client.callTool({ name: 'whoami', arguments: {} });
    expect(JSON.parse((who.content as { text: string }[])[0]!.text)).toEqual({
      user: 'user-42',
      client: 'mcp-client',
      scopes: ['mcp:tools'],
    });
    await client.close();
  });

  it('answers 401 with the resource_metadata hint, and serves that metadata', async () => {
    const res = await ctx.fetchFn(ctx.resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    const metadataUrl = new URL(ctx.resource);
    metadataUrl.pathname = `/.well-known/oauth-protected-resource${metadataUrl.pathname}`;
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl.href}", scope="mcp:tools"`,
    );
    const meta = await ctx.fetchFn(metadataUrl.href);
    expect(await meta.json()).toEqual({
      resource: ctx.resource,
      authorization_servers: [issuer],
      scopes_supported: ['mcp:tools'],
      bearer_methods_supported: ['header'],
      resource_name: 'svc example MCP server',
    });
  });

  it('refuses a token for another resource and a session-style token', async () => {
    await expect(connect(await accessToken(ctx.resource, { aud: 'http://other.test/mcp' }))).rejects.toThrow();
    await expect(connect(await accessToken(ctx.resource, {}, 'JWT'))).rejects.toThrow();
    const res = await ctx.fetchFn(ctx.resource, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await accessToken(ctx.resource, { scope: 'openid' })}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });
}

describe('examples/mcp-workers on Node (in process)', () => {
  const resource = 'http://mcp.test/mcp';
  const ctx = { resource, fetchFn: fetch };
  beforeAll(() => {
    const app = createMcpApp({ ISSUER: issuer, RESOURCE: resource });
    ctx.fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) =>
      app.request(input instanceof Request ? input : String(input), init)) as typeof fetch;
  });
  scenarios(ctx);
});

describe('examples/mcp-workers on workerd (wrangler dev)', () => {
  let dir: string | undefined;
  let dev: Spawned | undefined;
  const ctx = {
    resource: '',
    fetchFn: ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init)) as typeof fetch,
  };

  beforeAll(async () => {
    dir = tempDir('mcp-workers-example');
    const port = await freePort();
    ctx.resource = `http://127.0.0.1:${port}/mcp`;
    ({ proc: dev } = await startWranglerDev({
      configs: [join(ROOT, 'examples/mcp-workers/wrangler.toml')],
      dir,
      port,
      vars: { ISSUER: issuer, RESOURCE: ctx.resource },
    }));
    await waitForHttp(`http://127.0.0.1:${port}/`, dev, 60_000);
  }, 90_000);
  afterAll(async () => {
    await dev?.stop();
    removeDir(dir);
  });
  scenarios(ctx);
});
