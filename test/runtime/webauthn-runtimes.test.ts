/**
 * The WebAuthn verifier (src/crypto/webauthn) on every runtime svc supports:
 * ES256, RS256 and Ed25519 registrations and assertions verify, and a
 * tampered signature is refused, on Node, Bun, Deno and workerd (Miniflare,
 * the bundle built by esbuild as wrangler would, no nodejs_compat).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from './processes.js';
import { webauthnProbe } from './webauthn-probe.js';

const EXPECTED = {
  ES256: { registered: 'yes', counter: 5, tampered: 'signature' },
  RS256: { registered: 'yes', counter: 5, tampered: 'signature' },
  Ed25519: { registered: 'yes', counter: 5, tampered: 'signature' },
};
const MAIN = join(ROOT, 'test/runtime/webauthn-probe.main.ts');
const run = async (file: string, args: string[]) => {
  const { stdout } = await promisify(execFile)(file, args, {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
};

describe('WebAuthn verifier on every runtime', () => {
  it('Node', async () => {
    expect(await webauthnProbe()).toEqual(EXPECTED);
  });

  it('Bun', async () => {
    expect(await run(BIN.bun, [MAIN])).toEqual(EXPECTED);
  }, 60_000);

  it('Deno', async () => {
    expect(await run(BIN.deno, ['run', '-A', '--sloppy-imports', MAIN])).toEqual(EXPECTED);
  }, 60_000);

  it('workerd', async () => {
    const bundle = await build({
      stdin: {
        contents: `import { webauthnProbe } from './webauthn-probe.ts';\nexport default { async fetch() { return Response.json(await webauthnProbe()); } };`,
        resolveDir: join(ROOT, 'test/runtime'),
        loader: 'ts',
      },
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      write: false,
    });
    const { Miniflare } = await import('miniflare');
    const mf = new Miniflare({ modules: true, script: bundle.outputFiles[0]!.text, compatibilityDate: '2025-09-01' });
    try {
      const res = await mf.dispatchFetch('http://localhost/');
      expect(await res.json()).toEqual(EXPECTED);
    } finally {
      await mf.dispose();
    }
  }, 60_000);
});
