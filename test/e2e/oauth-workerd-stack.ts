/**
 * The workerd side of test/e2e/oauth-mcp.e2e.test.ts: under one `wrangler dev`,
 * the examples/workers pair (the app worker with the svc adapter, the API
 * worker on a local D1) with the OAuth provider on, two instances of
 * examples/mcp-workers (resources `/mcp` and `/b/mcp`), and a test-only front
 * worker routing by path (fixtures/mcp-gateway.ts). The configs are written
 * to a temporary directory from the examples' own, with absolute paths and
 * this run's port; the MCP workers fetch the JWKS through a service binding
 * to the app worker, as the example's README suggests.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import {
  ROOT,
  freePort,
  removeDir,
  startWranglerDev,
  tempDir,
  waitForHttp,
  type Spawned,
} from '../runtime/processes.js';

export interface WorkerdOAuthStack {
  /** The front worker, e.g. http://localhost:41234 (the app worker behind it). */
  base: string;
  issuer: string;
  resource: string;
  otherResource: string;
  proc: Spawned;
  /** The last code the app worker printed for `email` after `afterLength` characters of output. */
  codeFor: (email: string, afterLength: number) => Promise<string>;
  stop: () => Promise<void>;
}

const toml = (value: unknown) => JSON.stringify(value);

export async function startWorkerdOAuthStack(
  oauthServer: (base: string, resource: string) => Record<string, unknown>,
  scope: string,
): Promise<WorkerdOAuthStack> {
  const dir = tempDir('e2e-oauth-workerd');
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const issuer = `${base}/auth`;
  const resource = `${base}/mcp`;
  const otherResource = `${base}/b/mcp`;
  const abs = (p: string) => join(ROOT, p);
  const secret = () => randomBytes(32).toString('base64url');
  writeFileSync(join(dir, '.dev.vars'), `API_SERVICE_TOKEN=${secret()}\nCOOKIE_SECRET=${secret()}\n`);
  const files: Record<string, string> = {
    'gateway.toml': `name = "svc-e2e-gateway"
main = ${toml(abs('test/e2e/fixtures/mcp-gateway.ts'))}
compatibility_date = "2025-09-01"
services = [
  { binding = "APP", service = "svc-example-app" },
  { binding = "MCP", service = "svc-e2e-mcp" },
  { binding = "MCP_B", service = "svc-e2e-mcp-b" },
]
`,
    'app.toml': `name = "svc-example-app"
main = ${toml(abs('examples/workers/app.ts'))}
compatibility_date = "2025-09-01"
services = [{ binding = "AUTH", service = "svc-example-api" }]
[vars]
API_ISSUER = "http://svc-example-api.internal"
APP_ORIGIN = ${toml(base)}
`,
    'api.toml': `name = "svc-example-api"
main = ${toml(abs('src/worker.ts'))}
compatibility_date = "2025-09-01"
[[d1_databases]]
binding = "DB"
database_name = "svc-example"
database_id = "00000000-0000-4000-8000-000000000001"
migrations_dir = ${toml(abs('migrations'))}
[vars]
NODE_ENV = "development"
ISSUER = "http://svc-example-api.internal"
RPID = "localhost"
ORIGINS = ${toml(base)}
LOGIN_METHODS = "passkey,magic_link,email_otp"
RATE_LIMIT = "10000"
DELAY_AFTER = "0"
LOGIN_RESPONSE_FLOOR_MS = "0"
OAUTH_SERVER = ${toml(JSON.stringify(oauthServer(base, resource)))}
`,
    'mcp.toml': `name = "svc-e2e-mcp"
main = ${toml(abs('examples/mcp-workers/app.ts'))}
compatibility_date = "2025-09-01"
services = [{ binding = "AUTH", service = "svc-example-app" }]
[vars]
ISSUER = ${toml(issuer)}
RESOURCE = ${toml(resource)}
SCOPE = ${toml(scope)}
`,
    'mcp-b.toml': `name = "svc-e2e-mcp-b"
main = ${toml(abs('examples/mcp-workers/app.ts'))}
compatibility_date = "2025-09-01"
services = [{ binding = "AUTH", service = "svc-example-app" }]
[vars]
ISSUER = ${toml(issuer)}
RESOURCE = ${toml(otherResource)}
SCOPE = ${toml(scope)}
`,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  // cwd: the .dev.vars written above.
  const { proc } = await startWranglerDev({
    configs: ['gateway.toml', 'app.toml', 'api.toml', 'mcp.toml', 'mcp-b.toml'].map((f) => join(dir, f)),
    dir,
    port,
    cwd: dir,
  });
  const stop = async () => {
    await proc.stop();
    removeDir(dir);
  };
  try {
    await waitForHttp(`http://127.0.0.1:${port}/`, proc, 90_000);
  } catch (err) {
    await stop();
    throw err;
  }
  const codeFor = async (email: string, afterLength: number) => {
    const pattern = new RegExp(`otp_email for ${email.replace(/[.+]/g, '\\$&')}: ([A-Z0-9]{6})`, 'g');
    for (let i = 0; i < 100; i++) {
      const found = [...proc.output().slice(afterLength).matchAll(pattern)].pop();
      if (found) return found[1]!;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no code printed for ${email}:\n${proc.output().slice(-2000)}`);
  };
  return { base, issuer, resource, otherResource, proc, codeFor, stop };
}

/**
 * The browser is on the app's login URL with `return_to` (signed out). examples/workers has no
 * sign-in page, so the account is signed up through the adapter's cookie routes with `fetch` from
 * this page (the session cookie lands in the browser), then the page goes back to `return_to`,
 * which must be the issuer's authorization endpoint.
 */
export async function signUpFromLoginPage(stack: WorkerdOAuthStack, page: Page, email: string): Promise<void> {
  const returnTo = new URL(page.url()).searchParams.get('return_to')!;
  expect(returnTo.startsWith(`${stack.issuer}/oauth2/authorize?`)).toBe(true);
  const mark = stack.proc.output().length;
  const post = (path: string, body: unknown) =>
    page.evaluate(
      async ([p, b]) =>
        (await fetch(p!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: b })).status,
      [path, JSON.stringify(body)],
    );
  expect(await post('/auth/registration/register', { email })).toBe(200);
  const code = await stack.codeFor(email, mark);
  expect(await post('/auth/otp/verify-email-otp', { verificationToken: code })).toBe(200);
  await page.goto(returnTo);
}
