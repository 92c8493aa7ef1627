/**
 * `.env.example` lists every variable the API and `npm start` read, and
 * nothing they do not (issue: ".env.example lists every variable with a
 * comment"). The names are collected from the source: `parseEnv`'s readers,
 * the config seeds (`ENV_SEEDS`), and the entry files' `env['…']` lookups.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNames, ROOT } from '../../helpers/env-names.js';

/** `NAME=` lines, active or commented out (`# NAME=`). */
function exampleNames(): Set<string> {
  const text = readFileSync(join(ROOT, '.env.example'), 'utf8');
  return new Set([...text.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
}

describe('.env.example', () => {
  it('finds the variables the source reads (guards the scan itself)', () => {
    const names = readNames();
    for (const n of [
      'ISSUER',
      'DATABASE_URL',
      'API_SERVICE_TOKEN',
      'REFRESH_TOKEN_BCRYPT_COST',
      'DELIVERY_WEBHOOK_URL',
      'LOGIN_METHODS',
      'ORIGINS',
      'PORT',
      'HOST',
      'DEMO_PORT',
    ]) {
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
