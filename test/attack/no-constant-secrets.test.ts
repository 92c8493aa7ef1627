/**
 * No secret is a constant in what we ship: a development fallback
 * that is public works for anyone the moment a development instance is
 * reachable. Scans every shipped file (source, adapters, client, CLI, demo,
 * examples, scripts, the wrangler configs and `.env.example`) for:
 * - a string that announces itself as a placeholder secret (`not-for-production`, `change-me`, …);
 * - a long string literal given to a secret-named variable, property or setting;
 * - a secret-named `[vars]` entry or `.env.example` line with a value.
 * Test files are not shipped and may hold fixed test secrets.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SHIPPED =
  /^(src|adapter|client|cli|demo|examples|scripts|bin)\/.*\.(ts|tsx|mts|mjs|js|html)$|^[^/]*\.toml$|^examples\/.*\.toml$|^\.env\.example$/;
const PLACEHOLDER = /not[-_ ]for[-_ ]production|change[-_ ]?me\b|do[-_ ]not[-_ ]use|insecure[-_ ]secret/i;
const SECRET_NAME = /(secret|token|passw(or)?d|api_?key|private_?key|signing_?key)$/i;
/** `name = 'literal'`, `name: 'literal'`, `NAME = "literal"` (TOML). */
const ASSIGNED = /([A-Za-z_$][\w$]*)['"]?\s*[:=]\s*(['"`])([^'"`\n]{16,})\2/g;

/** Values a secret-named binding legitimately holds: names and formats, not secrets. */
function harmless(value: string): boolean {
  return (
    /^x-svc-[a-z-]+$/.test(value) || // a header's name
    /^[a-z]+(_[a-z]+)+$/.test(value) || // a snake_case identifier (a row name, an error code)
    /^[A-Z]+(_[A-Z0-9]+)+$/.test(value) || // an environment variable's name
    /^svc-[a-z]+(-[a-z]+){0,2}$/.test(value) || // a cookie's or token type's name
    /\s/.test(value) || // prose
    /\$\{/.test(value) // a template
  );
}

function shippedFiles(): string[] {
  return execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => SHIPPED.test(f));
}

export function findConstantSecrets(path: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    const where = `${path}:${i + 1}`;
    const code = line.replace(/^\s*(\/\/|\*|#).*$/, '');
    for (const m of code.matchAll(/(['"`])([^'"`\n]*)\1/g))
      if (PLACEHOLDER.test(m[2]!)) found.push(`${where} placeholder secret "${m[2]}"`);
    for (const m of code.matchAll(ASSIGNED)) {
      if (SECRET_NAME.test(m[1]!) && !harmless(m[3]!)) found.push(`${where} ${m[1]} is a literal "${m[3]}"`);
    }
    if (path === '.env.example' && /^[A-Z0-9_]*(SECRET|PASSWORD|PRIVATE|_TOKEN|_KEY)=\S/.test(line))
      found.push(`${where} has a value`);
  });
  return found;
}

describe('no constant secret in shipped files', () => {
  it('finds the kinds of constant this rule is about (the scanner can fail)', () => {
    expect(
      findConstantSecrets(
        'demo/app.ts',
        "export const DEMO_COOKIE_SECRET = 'svc-demo-cookie-secret-not-for-production-use';",
      ),
    ).toHaveLength(2);
    expect(
      findConstantSecrets(
        'src/config/env.ts',
        "export const DEV_SERVICE_TOKEN = 'svc-dev-service-token-not-for-production';",
      ),
    ).toHaveLength(2);
    expect(
      findConstantSecrets('x.toml', 'API_SERVICE_TOKEN = "example-service-token-change-me-0123456789"'),
    ).toHaveLength(2);
    expect(findConstantSecrets('x.ts', "const opts = { cookieSecret: 'a8Fq02mZpL9xV3kT7wYc' };")).toHaveLength(1);
    expect(findConstantSecrets('.env.example', 'API_SERVICE_TOKEN=abc')).toHaveLength(1);
    expect(findConstantSecrets('.env.example', 'API_SERVICE_TOKEN=')).toEqual([]);
    expect(findConstantSecrets('x.ts', "const SERVICE_TOKEN = 'api_service_token';")).toEqual([]);
  });

  it('finds none in the repository', () => {
    const found = shippedFiles().flatMap((f) => findConstantSecrets(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(found).toEqual([]);
  });
});
