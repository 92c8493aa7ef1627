/**
 * Writes a secret file all-or-nothing: a 0600 temporary file beside the
 * target, then a hard link (refuses an existing target atomically) or, with
 * `force`, a rename over it. A failure leaves neither a partial file nor a
 * clobbered one.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError, EXIT } from './exit-codes.js';

export function writeSecretFile(path: string, text: string, { force }: { force: boolean }): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
    // The mode argument is filtered by the umask; a secret file must be 0600 whatever it is.
    chmodSync(tmp, 0o600);
    if (force) renameSync(tmp, path);
    else linkSync(tmp, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new CliError(EXIT.failure, 'file_exists', `${path} already exists: pass --force to replace it`);
    throw new CliError(EXIT.failure, 'write_failed', `cannot write ${path} (${code ?? (err as Error).message})`);
  } finally {
    rmSync(tmp, { force: true });
  }
}
