/**
 * The environment variables the code reads, collected from the source:
 * `parseEnv`'s readers, the config seeds (`ENV_SEEDS`), and the entry files'
 * `env['…']` lookups. Shared by the `.env.example` and docs drift tests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV_SEEDS } from '../../src/config/keys.js';

export const ROOT = join(import.meta.dirname, '../..');

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

const READS = [
  /\bmillis\('([A-Z][A-Z0-9_]*)'/g,
  /\boptionalSecret\('([A-Z][A-Z0-9_]*)'\)/g,
  /\blist\('([A-Z][A-Z0-9_]*)'\)/g,
  /\b(?:str|secret|list)\((?:c\.)?env, '([A-Z][A-Z0-9_]*)'\)/g,
  /\bc\.str\('([A-Z][A-Z0-9_]*)'\)/g,
  /\benv\['([A-Z][A-Z0-9_]*)'\]/g,
  /\bprocess\.env\.([A-Z][A-Z0-9_]*)/g,
];

export function readNames(): Set<string> {
  const names = new Set<string>(Object.values(ENV_SEEDS).map(([name]) => name));
  for (const file of [...sourceFiles('src'), 'scripts/start.ts', 'scripts/dev-env.ts']) {
    const text = code(file);
    for (const re of READS) for (const m of text.matchAll(re)) names.add(m[1]!);
  }
  return names;
}
