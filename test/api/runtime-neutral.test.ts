/**
 * The API, the core library and the Hono adapter run on Workers (without
 * nodejs_compat), Bun, Deno and Node, so they use WebCrypto / Uint8Array only:
 * no `node:` or Node built-in imports, no `Buffer`, no `process`, outside the
 * Node and Bun entry files. And no interactive transactions anywhere (they
 * break the single embedded connection and do not exist on D1).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
// client/: svc-auth/client runs in browsers and native apps (React Native) as well.
const NEUTRAL_DIRS = ['src', 'common', 'adapter/core', 'adapter/hono', 'adapter/admin-console', 'client'];
// common/node/: the Node-only helpers the Node and Bun entries share with svc-auth/node.
const NODE_ONLY_DIRS = ['common/node/'];
// The API's Node and Bun entries, and the Node entries of svc-auth/core and svc-auth/hono (the package's `node`
// export condition: they install the Node transport as the default `fetch`).
const ENTRY_FILES = new Set(['src/node.ts', 'src/bun.ts', 'adapter/core/node.ts', 'adapter/hono/node.ts']);
const NODE_BUILTINS = [
  'assert',
  'buffer',
  'child_process',
  'crypto',
  'events',
  'fs',
  'fs/promises',
  'http',
  'https',
  'net',
  'os',
  'path',
  'process',
  'stream',
  'timers',
  'url',
  'util',
  'worker_threads',
  'zlib',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Source without comments (documentation may mention `process.env` in examples). */
const code = (file: string) =>
  readFileSync(join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const builtin = new RegExp(
  `(?:from\\s+|import\\s*\\(\\s*|require\\s*\\(\\s*)['"](?:node:[^'"]+|${NODE_BUILTINS.join('|')})['"]`,
);

function offenders(files: string[], test: (text: string) => boolean) {
  return files.filter((f) => test(code(f)));
}

describe('runtime-neutral source (src/, common/, adapter/core, adapter/hono, adapter/admin-console, client/)', () => {
  const files = NEUTRAL_DIRS.flatMap(sourceFiles);
  const neutral = files.filter((f) => !ENTRY_FILES.has(f) && !NODE_ONLY_DIRS.some((d) => f.startsWith(d)));

  it('scans the tree it means to (guards the scan itself)', () => {
    expect(files).toContain('src/app.ts');
    expect(files).toContain('adapter/core/index.ts');
    expect(files).toContain('adapter/hono/index.ts');
    expect(files).toContain('client/client.ts');
    expect(files).toContain('common/route-table.ts');
    expect(files).toContain('adapter/admin-console/page.ts');
    expect(neutral).not.toContain('common/node/bcrypt-pool.ts');
    expect(neutral).toContain('adapter/hono/index.ts');
    expect(neutral).not.toContain('adapter/hono/node.ts');
    expect(neutral.length).toBeGreaterThan(50);
    expect(builtin.test(`import { x } from 'node:fs';`)).toBe(true);
    expect(builtin.test(`import { x } from "crypto";`)).toBe(true);
    expect(builtin.test(`import { x } from './crypto/hash.js';`)).toBe(false);
  });

  it('imports no node: module or Node built-in outside src/node.ts and src/bun.ts', () => {
    expect(offenders(neutral, (t) => builtin.test(t))).toEqual([]);
  });

  it('leaves the Node-only helpers (adapter/node: the bcrypt pool, the upstream fetch) to the Node and Bun entries', () => {
    expect(offenders(neutral, (t) => /adapter\/node\/|common\/node\/|\.\.\/node\//.test(t))).toEqual([]);
  });

  it('uses no Buffer and no process outside the entry files', () => {
    expect(offenders(neutral, (t) => /\bBuffer\b/.test(t))).toEqual([]);
    expect(offenders(neutral, (t) => /\bprocess\s*[.[]/.test(t))).toEqual([]);
  });

  it('opens no interactive transaction anywhere', () => {
    expect(offenders(files, (t) => /\.transaction\s*\(/.test(t))).toEqual([]);
  });
});
