/**
 * `svc keys generate`: a fresh RS256 pair as the three SVC_JWKS_* variables
 * production reads (src/config/env.ts), checked with the API's own loader
 * before anything is printed or written.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { generateRsaPem, loadProductionKeys } from '../../src/crypto/keys.js';
import type { CommandContext } from '../commands.js';
import { EXIT, usageError, type ExitCode } from '../exit-codes.js';
import { writeSecretFile } from '../key-file.js';

/** The kid rule of parseEnv (SVC_JWKS_ACTIVE_KID). */
const KID_PATTERN = /^[A-Za-z0-9_]{1,64}$/;

function defaultKid(nowMs: number): string {
  const day = new Date(nowMs).toISOString().slice(0, 10).replace(/-/g, '');
  return `k${day}_${randomBytes(3).toString('hex')}`;
}

/** One line per variable; literal `\n` in the PEMs, which parseEnv turns back into newlines. */
export function keyVariables(kid: string, privatePem: string, publicPem: string): Record<string, string> {
  return {
    SVC_JWKS_ACTIVE_KID: kid,
    [`SVC_JWKS_KEY_${kid}_PRIVATE`]: privatePem.trim().replace(/\n/g, '\\n'),
    SVC_JWKS_PUBLIC_KEYS: JSON.stringify({ keys: [{ kid, pem: publicPem.trim() }] }),
  };
}

/** dotenv lines; single quotes keep `\n` and the JSON's quotes literal (also valid for `sh`). */
export const dotenvLines = (vars: Record<string, string>) =>
  Object.entries(vars).map(([k, v]) => (k === 'SVC_JWKS_ACTIVE_KID' ? `${k}=${v}` : `${k}='${v}'`));

export async function run({ values, out, cwd }: CommandContext): Promise<ExitCode> {
  const kid = typeof values['kid'] === 'string' ? values['kid'] : defaultKid(Date.now());
  if (!KID_PATTERN.test(kid)) throw usageError(`--kid must match ^[A-Za-z0-9_]{1,64}$ (letters, digits, underscore)`);
  const file = typeof values['out'] === 'string' ? values['out'] : undefined;
  if (values['force'] && !file) throw usageError('--force only applies with --out <file>');
  if (file === '') throw usageError('--out needs a file name');

  const { privatePem, publicPem } = await generateRsaPem();
  const vars = keyVariables(kid, privatePem, publicPem);
  // The same loader a production boot runs: what we hand out is known to start the API.
  await loadProductionKeys({
    activeKid: kid,
    privatePem: vars[`SVC_JWKS_KEY_${kid}_PRIVATE`]!.replace(/\\n/g, '\n'),
    publicKeysJson: vars['SVC_JWKS_PUBLIC_KEYS']!,
  });

  if (file) {
    const path = resolve(cwd, file);
    writeSecretFile(
      path,
      `# svc signing key ${kid} (RS256, 2048 bits), generated ${new Date().toISOString()}\n${dotenvLines(vars).join('\n')}\n`,
      { force: values['force'] === true },
    );
    out.line(`${out.paint('ok', 'wrote')} signing key ${out.paint('bold', kid)} to ${path} (mode 0600)`);
    out.note('Load it with --env or your secret store; before replacing a key in service, read `svc keys rotate`.');
    out.result({ ok: true, kid, file: path, variables: Object.keys(vars) });
    return EXIT.ok;
  }
  out.line(dotenvLines(vars).join('\n'));
  out.note(
    'warning: the private key is on stdout; prefer --out <file> (mode 0600). Rotating a key in service: svc keys rotate.',
  );
  out.result({ ok: true, kid, variables: vars });
  return EXIT.ok;
}
