/**
 * `.env.example` lists every variable the API and `npm start` read, and
 * nothing they do not (issue: ".env.example lists every variable with a
 * comment"). The names are collected from the source: `parseEnv`'s readers,
 * the config seeds (`ENV_SEEDS`), and the entry files' `env['…']` lookups.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_SEEDS } from '../../../src/config/keys.js';

const ROOT = join(import.meta.dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Source text without comments, so documentation examples do not count as reads. */
const code = (file: string) =>
  readFileSync(join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');

const READS = [/\bmillis\('([A-Z][A-Z0-9_]*)'/g, /\boptionalSecret\('([A-Z][A-Z0-9_]*)'\)/g, /\blist\('([A-Z][A-Z0-9_]*)'\)/g, /\b(?:str|secret|list)\(env, '([A-Z][A-Z0-9_]*)'\)/g, /\benv\['([A-Z][A-Z0-9_]*)'\]/g, /\bprocess\.env\.([A-Z][A-Z0-9_]*)/g];

function readNames(): Set<string> {
  const names = new Set<string>(Object.values(ENV_SEEDS).map(([name]) => name));
  for (const file of [...sourceFiles('src'), 'scripts/start.ts', 'scripts/dev-env.ts']) {
    const text = code(file);
    for (const re of READS) for (const m of text.matchAll(re)) names.add(m[1]!);
  }
  return names;
}

/** `NAME=` lines, active or commented out (`# NAME=`). */
function exampleNames(): Set<string> {
  const text = readFileSync(join(ROOT, '.env.example'), 'utf8');
  return new Set([...text.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
}

describe('.env.example', () => {
  it('finds the variables the source reads (guards the scan itself)', () => {
    const names = readNames();
    for (const n of ['ISSUER', 'DATABASE_URL', 'API_SERVICE_TOKEN', 'REFRESH_TOKEN_BCRYPT_COST', 'DELIVERY_WEBHOOK_URL', 'LOGIN_METHODS', 'ORIGINS', 'PORT', 'HOST', 'DEMO_PORT']) {
      expect(names).toContain(n);
    }
  });

  it('lists every variable the API, its entry files and npm start read', () => {
    const listed = exampleNames();
    const missing = [...readNames()].filter((n) => !listed.has(n)).sort();
    expect(missing).toEqual([]);
  });

  it('lists nothing the code does not read (besides the documented placeholders)', () => {
    const read = readNames();
    // GOOGLE_CLIENT_SECRET illustrates an OAuth provider's clientSecretEnv; SVC_JWKS_KEY_<kid>_PRIVATE is a pattern.
    const placeholders = new Set(['GOOGLE_CLIENT_SECRET']);
    const stale = [...exampleNames()].filter((n) => !read.has(n) && !placeholders.has(n)).sort();
    expect(stale).toEqual([]);
    expect(readFileSync(join(ROOT, '.env.example'), 'utf8')).toContain('SVC_JWKS_KEY_<kid>_PRIVATE=');
  });

  it('puts a comment above or beside every variable group', () => {
    const lines = readFileSync(join(ROOT, '.env.example'), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (!/^[A-Z][A-Z0-9_]*=/.test(line)) return;
      // Walk up through the group's other assignments to the nearest non-assignment line: it must be a comment.
      let j = i - 1;
      while (j >= 0 && /^#? ?[A-Z][A-Z0-9_]*=/.test(lines[j]!)) j--;
      expect(lines[j]?.startsWith('#'), `no comment above ${line}`).toBe(true);
    });
  });
});
