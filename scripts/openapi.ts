/**
 * `npm run openapi`: writes docs/openapi.json (the auth API) and
 * docs/openapi.adapter.json (the adapter's browser-facing routes) from the
 * code. `npm run openapi -- --check` exits 1 when a committed file is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPENAPI_FILES } from '../src/openapi/files.js';

const root = join(import.meta.dirname, '..');
const check = process.argv.includes('--check');
let stale = 0;
for (const { file, build } of OPENAPI_FILES) {
  const text = `${JSON.stringify(build(), null, 2)}\n`;
  const path = join(root, file);
  let current: string | null = null;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = null;
  }
  if (current === text) console.log(`${file}: up to date`);
  else if (check) {
    stale++;
    console.error(`${file}: stale; run npm run openapi`);
  } else {
    writeFileSync(path, text);
    console.log(`${file}: written`);
  }
}
process.exit(stale ? 1 : 0);
