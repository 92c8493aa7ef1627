#!/usr/bin/env node
/*
 * `svc` (docs/cli.md). In a checkout the TypeScript source runs through tsx
 * (a devDependency, present after `npm ci`); the published package has no
 * source and runs the build in dist/. Nothing else happens here.
 */
import { existsSync } from 'node:fs';

const source = new URL('../cli/main.ts', import.meta.url);
const built = new URL('../dist/cli/main.js', import.meta.url);

let entry = built;
if (existsSync(source)) {
  try {
    const { register } = await import('tsx/esm/api');
    register();
    entry = source;
  } catch {
    if (!existsSync(built)) {
      console.error(
        'svc: error: this checkout has no dev dependencies to run the CLI from source: run npm ci (or npm run build)',
      );
      process.exit(1);
    }
  }
} else if (!existsSync(built)) {
  console.error('svc: error: dist/cli/main.js is missing: run npm run build');
  process.exit(1);
}

const { main } = await import(entry.href);
const code = await main(process.argv.slice(2), { streams: process, env: process.env, cwd: process.cwd() });
// Exit now: an HTTP keep-alive socket of the database client must not hold the process open.
process.exit(code);
