/** Temporary libSQL database files shared by several API instances or processes. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDb {
  url: string;
  dir: string;
  remove(): void;
}

export function tempDbFile(name = 'svc.db'): TempDb {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  return { url: `file:${join(dir, name)}`, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
