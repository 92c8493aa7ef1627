#!/usr/bin/env node
/**
 * Rewraps comments wider than the formatter's line width (`formatter.lineWidth` in biome.jsonc): a formatter
 * moves code but never breaks a comment, so the long lines it leaves behind are mostly prose. Tooling, run once
 * between two `biome format --write` passes (the first settles the indentation the comments wrap at).
 *
 *   node scripts/wrap-comments.mjs [--dry-run] [file...]   # default: the tracked .ts/.mts/.js/.mjs files biome covers
 *
 * What it does, at word boundaries, keeping each line's indentation and comment prefix:
 * - a `//` line over the width is cut; the rest goes to the next `//` line of the same paragraph (or a new one);
 * - a ` * ` line of a block comment likewise, the first (`/** text`) and last (`text *\/`) lines included;
 * - a one-line `/** text *\/` alone on its line becomes a three-line block;
 * - a `//` comment trailing code moves above that code, wrapped.
 * What it leaves alone: a word longer than the width (a URL), table rows (`|`), indented text (code samples),
 * fenced code, directives (`@ts-expect-error`, `biome-ignore`, `///`), `/*!` notices, and a block comment sharing
 * its line with code. Each file is parsed with TypeScript before and after: if the code tokens or the comments'
 * words differ, the file is left unchanged and reported (exit 1).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const EXTENSIONS = /\.(ts|mts|cts|js|mjs|cjs)$/;
/** What biome.jsonc leaves out: generated files, docs and migrations. */
const NOT_FORMATTED = /^(docs|migrations)\/|\.generated\.ts$/;
const DIRECTIVE = /^\s*(@ts-|eslint|biome-ignore|prettier-ignore|istanbul |c8 |#|@vitest-|global |<reference)/;
const LIST_ITEM = /^([-*+•]|\d+[.)]) /;
/** A comment line that reads as code (a statement or a block opening), never wrapped or joined. */
const CODE = /^(import|export|const|let|var|await|return|app\.|new )\b|[;{]$/;

/** The formatter's width, read from biome.jsonc so the two never disagree. */
function lineWidth() {
  const { config, error } = ts.parseConfigFileTextToJson('biome.jsonc', readFileSync('biome.jsonc', 'utf8'));
  if (error || !config?.formatter?.lineWidth) throw new Error('biome.jsonc: no formatter.lineWidth');
  return config.formatter.lineWidth;
}

/** Width in characters (code points), as the formatter counts it for the text we have. */
const widthOf = (s) => [...s].length;

function parse(file, text) {
  const kind = /\.(m|c)?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
}

/** Every comment of the file (ranges from the trivia around real tokens, never from inside a string). */
function commentsOf(sf) {
  const text = sf.text;
  const seen = new Map();
  const add = (ranges) => {
    for (const r of ranges ?? []) seen.set(r.pos, r);
  };
  const visit = (node) => {
    add(ts.getLeadingCommentRanges(text, node.getFullStart()));
    add(ts.getTrailingCommentRanges(text, node.getEnd()));
    for (const child of node.getChildren(sf)) {
      if (child.kind >= ts.SyntaxKind.FirstJSDocNode && child.kind <= ts.SyntaxKind.LastJSDocNode) continue;
      visit(child);
    }
  };
  visit(sf);
  return [...seen.values()].sort((a, b) => a.pos - b.pos);
}

/** The code tokens' text, and the template/string literal spans a line must not start inside. */
function tokensOf(sf) {
  const tokens = [];
  const literals = [];
  const visit = (node) => {
    const children = node.getChildren(sf).filter((c) => c.kind < ts.SyntaxKind.FirstJSDocNode);
    if (children.length === 0 && node.kind !== ts.SyntaxKind.SyntaxList) {
      tokens.push(node.getText(sf));
      if (node.getText(sf).includes('\n')) literals.push([node.getStart(sf), node.getEnd()]);
    }
    for (const child of children) visit(child);
  };
  visit(sf);
  return { tokens, literals };
}

/** The words of every comment, sorted: wrapping may move a comment or re-break it, never change a word. */
function commentWords(sf) {
  return commentsOf(sf)
    .flatMap((r) =>
      sf.text
        .slice(r.pos, r.end)
        .replace(/\*\/$/, ' ')
        .replace(/^\/\*\*?|^\/\/|^\s*\*/gm, ' ')
        .split(/\s+/),
    )
    .filter(Boolean)
    .sort();
}

/** A comment's words; a `code span` with spaces stays one word, so a wrap never breaks inside it. */
function wordsOf(text) {
  const out = [];
  for (const word of text.split(/ +/).filter(Boolean)) {
    const open = out.length > 0 && (out.at(-1).split('`').length - 1) % 2 === 1;
    if (open) out[out.length - 1] += ` ${word}`;
    else out.push(word);
  }
  return out;
}

/**
 * Greedy fill of `words` into lines within `width`: the first line starts with `prefix`, the others with `rest` and
 * `hang` (a list item's indent). A word too long for any line keeps a line of its own.
 */
function fill(prefix, words, width, hang = '', rest = prefix) {
  const out = [];
  let line = '';
  const lead = () => (out.length ? rest + hang : prefix);
  for (const word of words) {
    if (line && widthOf(`${lead()}${line} ${word}`) > width) {
      out.push(lead() + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(lead() + line);
  return out;
}

/**
 * The greedy fill, unless its last line is short (under 30 characters of text): then the fill at the narrowest width
 * (down to 40 less) that takes as many lines, so no word or two is left alone on a line.
 */
function balance(count, fillAt, width) {
  let best = fillAt(width);
  if (widthOf(best.at(-1).trim()) >= 30) return best;
  for (let w = width - 1; w >= width - 40; w--) {
    const next = fillAt(w);
    if (next.length !== count) break;
    best = next;
  }
  return best;
}

/** A comment line's prose, or null when the line is not prose to wrap (table, code sample, directive, blank). */
function prose(body) {
  if (!body.trim() || /^\s/.test(body) || body.startsWith('|') || body.startsWith('```')) return null;
  if (DIRECTIVE.test(body) || CODE.test(body)) return null;
  return body;
}

/**
 * Splits the comment lines [from, to) into runs of prose, cut at code: fenced blocks and everything after an
 * `@example` tag up to the next tag. `body(i)` is line i's text after its prefix, or null.
 */
function proseRuns(from, to, body) {
  const runs = [];
  let start = from;
  let code = false;
  for (let i = from; i < to; i++) {
    const text = body(i) ?? '';
    const fence = text.startsWith('```');
    if (text.startsWith('@')) code = text.startsWith('@example');
    else if (fence) code = !code;
    if (code || fence || text.startsWith('@example')) {
      if (i > start) runs.push([start, i]);
      start = i + 1;
    }
  }
  if (to > start) runs.push([start, to]);
  return runs;
}

/**
 * Wraps the lines [from, to) of one comment paragraph group in place. `split(line)` returns
 * `{ prefix, body, suffix }` or null for a line that belongs to no group. Overflow is carried into the next line
 * when it continues the same paragraph, else new lines are inserted.
 */
function wrapRun(lines, from, to, split, width) {
  let end = to;
  for (let i = from; i < end; i++) {
    const cur = split(lines[i]);
    if (!cur || widthOf(lines[i]) <= width || prose(cur.body) === null) continue;
    const words = wordsOf(cur.body);
    const hang = LIST_ITEM.test(cur.body) ? ' '.repeat(cur.body.match(LIST_ITEM)[0].length) : '';
    const filled = fill(cur.prefix, words, width - widthOf(cur.suffix), hang);
    if (filled.length < 2) continue;
    const next = i + 1 < end && !cur.suffix ? split(lines[i + 1]) : null;
    const continues =
      next &&
      !hang &&
      next.prefix === cur.prefix &&
      prose(next.body) !== null &&
      !LIST_ITEM.test(next.body) &&
      !next.body.startsWith('@');
    if (continues) {
      const rest = filled.slice(1).map((l) => l.slice(cur.prefix.length));
      lines[i] = filled[0];
      lines[i + 1] = cur.prefix + [...rest, next.body].join(' ') + next.suffix;
    } else {
      const balanced = balance(filled.length, (w) => fill(cur.prefix, words, w - widthOf(cur.suffix), hang), width);
      filled.splice(0, filled.length, ...balanced);
      filled[filled.length - 1] += cur.suffix;
      lines.splice(i, 1, ...filled);
      end += filled.length - 1;
      i += filled.length - 2;
    }
  }
}

/** Rewraps one file's text; returns the new text (or the same text). */
export function wrapText(file, text, width) {
  const sf = parse(file, text);
  const { literals } = tokensOf(sf);
  const lines = text.split('\n');
  const starts = [];
  for (let i = 0, at = 0; i < lines.length; at += lines[i].length + 1, i++) starts.push(at);
  const lineAt = (pos) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const insideLiteral = (pos) => literals.some(([s, e]) => pos > s && pos < e);

  // Work bottom-up so inserted lines never shift a comment still to be handled.
  const jobs = [];
  for (const r of commentsOf(sf)) {
    const first = lineAt(r.pos);
    const last = lineAt(r.end - 1);
    const before = text.slice(starts[first], r.pos);
    const after = text.slice(r.end, starts[last] + lines[last].length);
    const indent = before.match(/^\s*/)[0];
    const raw = text.slice(r.pos, r.end);
    if (r.kind === ts.SyntaxKind.SingleLineCommentTrivia) {
      if (raw.startsWith('///') || raw.startsWith('//#') || DIRECTIVE.test(raw.slice(2))) continue;
      if (before.trim() === '') jobs.push({ kind: 'line', first, last: first });
      else if (widthOf(lines[first]) > width && !insideLiteral(starts[first]))
        jobs.push({ kind: 'trailing', first, r });
    } else if (before.trim() === '' && after.trim() === '' && !raw.startsWith('/*!')) {
      jobs.push({ kind: 'block', first, last, indent, doc: raw.startsWith('/**') });
    }
  }
  // Consecutive `//` lines form one paragraph group.
  const merged = [];
  for (const job of jobs) {
    const prev = merged.at(-1);
    if (job.kind === 'line' && prev?.kind === 'line' && prev.last === job.first - 1) prev.last = job.first;
    else merged.push({ ...job });
  }

  for (const job of merged.reverse()) {
    if (job.kind === 'line') {
      const split = (line) => {
        const m = line.match(/^(\s*\/\/ ?)(.*)$/);
        return m ? { prefix: m[1], body: m[2], suffix: '' } : null;
      };
      wrapRuns(lines, job.first, job.last + 1, split, width);
    } else if (job.kind === 'trailing') {
      const line = lines[job.first];
      const col = job.r.pos - starts[job.first];
      const indent = line.match(/^\s*/)[0];
      const body = line.slice(col).replace(/^\/\/ ?/, '');
      if (prose(body) === null) continue;
      const words = wordsOf(body);
      const above = fill(`${indent}// `, words, width);
      const balanced = balance(above.length, (w) => fill(`${indent}// `, words, w), width);
      lines.splice(job.first, 1, ...balanced, line.slice(0, col).trimEnd());
    } else {
      wrapBlock(lines, job, width);
    }
  }
  return lines.join('\n');
}

/** A block comment alone on its lines: ` * ` lines wrap in place; a long one-liner opens into three lines. */
function wrapBlock(lines, { first, last, indent, doc }, width) {
  const open = doc ? '/**' : '/*';
  const star = `${indent} * `;
  if (first === last) {
    const m = lines[first].match(/^(\s*)\/\*\*? (.*?) ?\*\/$/);
    if (!m || widthOf(lines[first]) <= width || prose(m[2]) === null) return;
    const words = wordsOf(m[2]);
    const balanced = balance(fill(star, words, width).length, (w) => fill(star, words, w), width);
    lines.splice(first, 1, `${indent}${open}`, ...balanced, `${indent} */`);
    return;
  }
  // The opening line's continuation takes the ` * ` prefix, so it is wrapped on its own.
  const head = lines[first].match(/^(\s*\/\*\*? )(.+)$/);
  if (head && widthOf(lines[first]) > width && prose(head[2]) !== null) {
    const words = wordsOf(head[2]);
    const count = fill(head[1], words, width, '', star).length;
    if (count > 1) {
      lines.splice(first, 1, ...balance(count, (w) => fill(head[1], words, w, '', star), width));
      last += count - 1;
    }
  }
  // Inner lines are ` * text`; the last one may end with `*/`, which stays on the last line.
  const split = (line) => {
    if (line.trim() === '*/') return null;
    const m = line.match(/^(\s*\*)( ?)(.*?)( ?\*\/)?$/);
    return m ? { prefix: `${m[1]} `, body: m[3], suffix: m[4] ?? '' } : null;
  };
  wrapRuns(lines, first + 1, last + 1, split, width);
}

/** wrapRun on each prose run of the comment lines [from, to), last run first so insertions shift nothing pending. */
function wrapRuns(lines, from, to, split, width) {
  const runs = proseRuns(from, to, (i) => split(lines[i])?.body ?? null);
  for (const [start, end] of runs.reverse()) wrapRun(lines, start, end, split, width);
}

/** The tracked script files biome formats. */
function defaultFiles() {
  const out = execFileSync('git', ['ls-files'], { encoding: 'utf8' });
  return out.split('\n').filter((f) => EXTENSIONS.test(f) && !NOT_FORMATTED.test(f));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const dryRun = args.includes('--dry-run');
  const files = args.filter((a) => !a.startsWith('--'));
  const width = lineWidth();
  let changed = 0;
  let refused = 0;
  for (const file of files.length ? files : defaultFiles()) {
    const text = readFileSync(file, 'utf8');
    const next = wrapText(file, text, width);
    if (next === text) continue;
    const a = parse(file, text);
    const b = parse(file, next);
    const same = (x, y) => x.length === y.length && x.every((v, i) => v === y[i]);
    if (!same(tokensOf(a).tokens, tokensOf(b).tokens) || !same(commentWords(a), commentWords(b))) {
      console.error(`${file}: left unchanged (wrapping would change its code or its comments' words)`);
      refused++;
      continue;
    }
    changed++;
    if (dryRun) console.log(`${file}: would rewrap`);
    else writeFileSync(file, next);
  }
  console.log(
    `wrap-comments: ${changed} file(s) ${dryRun ? 'to rewrap' : 'rewrapped'} at ${width} characters, ${refused} refused`,
  );
  process.exit(refused ? 1 : 0);
}
