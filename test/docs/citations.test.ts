/**
 * Every citation of the wire contract resolves, and the tree explains itself
 * without pointing at a tracker or a process nobody who clones it can read.
 *
 * Citations. A citation is `§` followed by a section number (`§3.8`, `§4`,
 * `§5.3–§5.5`) in any text file under the scanned roots. It cites
 * `docs/contract.md`, and must name one of its numbered headings
 * (`### 3.8 Refresh and logout` → 3.8, `## 4. Flows` → 4), unless:
 * - the words right before it name a published standard: `RFC 9470 §3`,
 *   `WebAuthn L3 §6.1.3` (or `L3 §…`), `OIDC Core §3.1.3.7`, `OpenID Connect
 *   Core §2`, `OIDC Discovery §4.3`. Those are not ours and are not checked;
 * - it continues a list or range whose first item names one (`RFC 9052 §7.1,
 *   RFC 9053 §7`, `L3 §5.4, §5.5`, `§5.1.8–§5.1.10`, `§7.1 steps 5–16,
 *   §7.2`): up to 30 characters after the previous citation, with no sentence
 *   end between, it takes that citation's document.
 * `contract §…` always cites the contract. A citation of a document that is
 * not in the repository (`spec §…`, `style §…`) fails, whatever its number:
 * cite the contract section instead.
 *
 * References. No `issue #23`, `issue 29`, `issues 19 and 21`, no decision
 * labels (`D5e`, `D3`; `D1` alone is Cloudflare's database and stays), in the
 * same files: say the reason instead.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/env-names.js';

// `common` (the neutral home of the wire vocabulary) and `bin` are scanned once they exist; an absent root is skipped.
const ROOTS = [
  'src',
  'adapter',
  'common',
  'client',
  'cli',
  'bin',
  'demo',
  'scripts',
  'bench',
  'test',
  'docs',
  'README.md',
  'examples',
];
const TEXT = /\.(ts|tsx|js|mjs|cjs|md|json|html|css|toml|sql)$/;
const SKIP = new Set(['node_modules', '.wrangler', 'dist', 'package-lock.json']);

function files(path: string): string[] {
  const abs = join(ROOT, path);
  if (!statSync(abs, { throwIfNoEntry: false })) return [];
  if (statSync(abs).isFile()) return TEXT.test(path) ? [path] : [];
  return readdirSync(abs).flatMap((name) => (SKIP.has(name) ? [] : files(join(path, name))));
}

// This file is left out: its header and its examples show what it looks for.
const scanned = ROOTS.flatMap(files)
  .filter((file) => file !== join('test', 'docs', 'citations.test.ts'))
  .map((file) => ({ file: relative(ROOT, join(ROOT, file)), text: readFileSync(join(ROOT, file), 'utf8') }));

/** The section numbers of docs/contract.md: `## 3. Auth API routes`, `### 3.8 Refresh and logout`. */
const sections = new Set(
  [...readFileSync(join(ROOT, 'docs/contract.md'), 'utf8').matchAll(/^#{2,4} (\d+(?:\.\d+)*)\.? /gm)].map((m) => m[1]!),
);

/** Published standards cited by section: their citations are not ours. */
const STANDARD =
  /(?:RFC ?\d+|\bL[1-3]|WebAuthn(?: Level \d)?|\bCore|\bDiscovery|\bOIDC|ASVS(?: [\d.]+)?|CTAP ?\d?)\s*$/;
/** Documents we do not ship: a citation of one is always an error. */
const ABSENT = /\b(spec|specification|style|brief)(?:'s)?\s*$/i;
/** The previous citation of a list or range: `§7.1, `, `§5.1.8–`, `§7.1 steps 5–16, `. */
const CONTINUES = /§\s?\d+(?:\.\d+)*[^§.;:!?]{0,30}$/;

/** Comment markers at line starts become spaces, so a citation wrapped in a block comment reads as one line. */
const flatten = (text: string) => text.replace(/\n[ \t]*(?:\*(?!\/)|\/\/|#(?!#))?[ \t]*/g, ' ');

type Found = { where: string; cited: string; section: string; document: 'contract' | 'standard' | 'absent' };

function citations(file: string, text: string): Found[] {
  const found: Found[] = [];
  for (const m of text.matchAll(/§\s?(\d+(?:\.\d+)*)/g)) {
    const before = flatten(text.slice(Math.max(0, m.index - 160), m.index)).slice(-60);
    let document: Found['document'] = 'contract';
    if (/contract(?:'s)?\s*$/i.test(before)) document = 'contract';
    else if (ABSENT.test(before)) document = 'absent';
    else if (STANDARD.test(before)) document = 'standard';
    else if (CONTINUES.test(before)) document = found.at(-1)?.document ?? 'contract';
    const line = text.slice(0, m.index).split('\n').length;
    found.push({ where: `${file}:${line}`, cited: `${before.slice(-24)}${m[0]}`.trim(), section: m[1]!, document });
  }
  return found;
}

const all = scanned.flatMap(({ file, text }) => citations(file, text));
if (process.env.SVC_LIST_CITATIONS) for (const c of all) console.log(`${c.document}\t${c.where}\t${c.cited}`);

describe('§ citations', () => {
  it('finds the contract and its citations (the scan itself works)', () => {
    expect(sections.has('3.8')).toBe(true);
    expect(sections.has('4')).toBe(true);
    expect(sections.has('4.2')).toBe(true);
    expect(sections.has('9.9')).toBe(false);
    expect(all.filter((c) => c.document === 'contract').length).toBeGreaterThan(300);
  });

  it('classifies citations by the document named before them', () => {
    const kinds = (text: string) => citations('x', text).map((c) => `${c.section}:${c.document}`);
    expect(kinds('contract §3.8 and RFC 9470 §3, §4')).toEqual(['3.8:contract', '3:standard', '4:standard']);
    expect(kinds('(WebAuthn L3 §7.1 steps\n * 5–16, §7.2 steps 7–18). See §5.4')).toEqual([
      '7.1:standard',
      '7.2:standard',
      '5.4:contract',
    ]);
    expect(kinds('spec §4 and style §3.4')).toEqual(['4:absent', '3.4:absent']);
    expect(kinds('§5.3–§5.5')).toEqual(['5.3:contract', '5.5:contract']);
    expect(kinds('RFC 9470 §3 challenge, contract §3.11')).toEqual(['3:standard', '3.11:contract']);
  });

  it('cites only documents in the repository', () => {
    expect(all.filter((c) => c.document === 'absent').map((c) => `${c.where}: ${c.cited}`)).toEqual([]);
  });

  it('every contract citation names a section heading of docs/contract.md', () => {
    const broken = all
      .filter((c) => c.document === 'contract' && !sections.has(c.section))
      .map((c) => `${c.where}: ${c.cited}`);
    expect(broken).toEqual([]);
  });
});

describe('references a reader can follow', () => {
  const offending = (pattern: RegExp) =>
    scanned.flatMap(({ file, text }) =>
      text.split('\n').flatMap((line, i) => [...line.matchAll(pattern)].map((m) => `${file}:${i + 1}: ${m[0]}`)),
    );

  it('names no issue numbers: the reason itself is written down', () => {
    expect(offending(/\bissues? ?#?\d+(?:(?:,| and| or) #?\d+)*/gi)).toEqual([]);
  });

  it('cites no document the repository lacks by title or path (spec "OAuth rules", shared/contract.md)', () => {
    expect(offending(/\bspec ["'][A-Z][^"']*["']|shared\/(?:contract|spec|style)\.md/g)).toEqual([]);
  });

  it('names no decision labels (D2–D11, D5a–D5f)', () => {
    expect(offending(/(?<![:\w])D(?:[2-9]|1[01]|5[a-f])\b(?!:)/g)).toEqual([]);
  });
});
