/**
 * The docs stay true to the code: the configuration tables list
 * exactly the variables the code reads and the system-config keys it defines
 * (with their env seeds), every relative link and #anchor of README.md and
 * docs/ resolves, and the README stays a landing page with the two set-up
 * commands CI runs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, ENV_SEEDS } from '../../src/config/keys.js';
import { readNames, ROOT } from '../helpers/env-names.js';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const configuration = read('docs/configuration.md');

/** The part of a markdown file under the heading `title`, up to the next heading of the same level. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`no section "${title}"`);
  const next = markdown.indexOf('\n## ', start + 4);
  return markdown.slice(start, next < 0 ? undefined : next);
}

/** First-column names of table rows: | `NAME` | … */
const tableNames = (markdown: string, pattern: RegExp) => [...markdown.matchAll(pattern)].map((m) => m[1]!);

describe('docs/configuration.md', () => {
  it('lists every environment variable the code reads, and none it does not', () => {
    // First column of the variable tables, plus the env-seed column of the system-config table.
    const documented = new Set([
      ...tableNames(configuration, /^\| `([A-Z][A-Z0-9_]*)` \|/gm),
      ...tableNames(configuration, /^\| `[a-z_]+` \| `([A-Z][A-Z0-9_]*)` \|/gm),
    ]);
    const code = readNames();
    expect([...code].filter((n) => !documented.has(n)).sort(), 'read by the code, missing from the tables').toEqual([]);
    expect([...documented].filter((n) => !code.has(n)).sort(), 'in the tables, read by nothing').toEqual([]);
  });

  it('lists every system-config key with its env seed, and none other', () => {
    const rows = [...section(configuration, 'System config').matchAll(/^\| `([a-z_]+)` \| `([A-Z_]+)` \|/gm)].map(
      (m) => [m[1]!, m[2]!],
    );
    expect(rows.map(([key]) => key).sort()).toEqual([...CONFIG_KEYS].sort());
    for (const [key, seed] of rows) expect(seed, key).toBe(ENV_SEEDS[key as keyof typeof ENV_SEEDS]![0]);
  });
});

/** GitHub's heading anchors: lower-case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');

function anchors(file: string): Set<string> {
  const text = read(file).replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

const markdownFiles = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('links in README.md and docs/', () => {
  it.each(markdownFiles)('%s: every relative link and anchor resolves', (file) => {
    const text = read(file).replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/i.test(target)) continue; // http(s), mailto
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path ? relative(ROOT, join(ROOT, dirname(file), path)) : file;
      if (!existsSync(join(ROOT, resolved))) broken.push(`${target} (no ${resolved})`);
      else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor))
        broken.push(`${target} (no heading #${anchor} in ${resolved})`);
    }
    expect(broken).toEqual([]);
  });

  it.each(markdownFiles)('%s: carries no merge-conflict markers', (file) => {
    expect(
      read(file)
        .split('\n')
        .filter((line) => /^(<{7}|={7}|>{7})( |$)/.test(line)),
    ).toEqual([]);
  });

  it('links every docs page from the docs index', () => {
    const index = read('docs/README.md');
    const unlinked = markdownFiles.filter(
      (f) => f.startsWith('docs/') && f !== 'docs/README.md' && !index.includes(`](${f.slice(5)}`),
    );
    expect(unlinked).toEqual([]);
  });
});

describe('README.md', () => {
  it('is a landing page under 10 KB with the two set-up commands CI runs', () => {
    const readme = read('README.md');
    expect(Buffer.byteLength(readme)).toBeLessThan(10 * 1024);
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    expect(read('.ci/run')).toContain('npm ci && npm test');
  });
});
