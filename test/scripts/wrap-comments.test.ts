/**
 * scripts/wrap-comments.mjs, run once before the tree is formatted: it rewraps prose comments and touches nothing
 * else (code, strings, code samples, tables, directives).
 */
import { describe, expect, it } from 'vitest';
import { wrapText } from '../../scripts/wrap-comments.mjs';

const WIDTH = 40;
const wrap = (text: string, file = 'x.ts') => wrapText(file, text, WIDTH);
const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));

describe('wrap-comments', () => {
  it('wraps a long // paragraph at word boundaries, keeping its indentation, into the next line of the paragraph', () => {
    const text = [
      'function f() {',
      '  // one two three four five six seven eight nine ten',
      '  // eleven twelve',
      '  return 1;',
      '}',
    ].join('\n');
    expect(wrap(text)).toBe(
      [
        'function f() {',
        '  // one two three four five six seven',
        '  // eight nine ten eleven twelve',
        '  return 1;',
        '}',
      ].join('\n'),
    );
  });

  it('opens a long one-line /** */ into a block and wraps block lines, the closing one included', () => {
    const one = '/** alpha beta gamma delta epsilon zeta eta theta */\nexport const x = 1;';
    // Balanced: a short last line would leave "eta theta" alone.
    expect(wrap(one)).toBe('/**\n * alpha beta gamma delta\n * epsilon zeta eta theta\n */\nexport const x = 1;');
    const block = '/**\n * alpha beta gamma delta epsilon zeta eta theta iota */\nexport const x = 1;';
    const out = wrap(block);
    expect(widest(out)).toBeLessThanOrEqual(WIDTH);
    expect(out.trimEnd().endsWith('*/\nexport const x = 1;')).toBe(true);
  });

  it('moves a long trailing comment above its line', () => {
    expect(wrap('const a = 1; // the first number of all numbers')).toBe(
      '// the first number of all numbers\nconst a = 1;',
    );
  });

  it('leaves code samples, tables, directives, long words and short comments alone', () => {
    const untouched = [
      '/**',
      ' * @example',
      ' * const veryLongName = anotherVeryLongName(withArguments, andMore);',
      ' */',
      '// | column one | column two | column three |',
      '//   indented sample(code, that, is, long, enough);',
      '// @ts-expect-error a directive that is long enough to wrap',
      '// https://example.com/a/very/long/url/that/cannot/break',
      '/*! notice: a licence line that is long enough to wrap */',
      '// short',
      'export {};',
    ].join('\n');
    expect(wrap(untouched)).toBe(untouched);
  });

  it('never touches strings or template literals that look like comments', () => {
    const text = [
      "const url = 'http://example.com // not a comment, even when this string is long';",
      'const page = `',
      '  // a line of a template literal, long enough to be wrapped',
      '`;',
    ].join('\n');
    expect(wrap(text)).toBe(text);
  });

  it('is stable: a second run changes nothing', () => {
    const text =
      '/** one two three four five six seven eight nine ten eleven twelve thirteen */\nlet y = 2; // trailing words that make this line too long\n';
    const once = wrap(text);
    expect(wrap(once)).toBe(once);
    expect(widest(once)).toBeLessThanOrEqual(WIDTH);
  });

  it('parses plain JavaScript too', () => {
    expect(wrap('// one two three four five six seven eight nine ten\nexport const z = 3;\n', 'x.mjs')).toBe(
      '// one two three four five\n// six seven eight nine ten\nexport const z = 3;\n',
    );
  });
});
