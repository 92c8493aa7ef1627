/**
 * WCAG 2.x contrast ratios (the relative-luminance formula of WCAG 2.1, "contrast ratio" in its glossary)
 * and a reader of the colours a stylesheet gives its custom properties and rules: the focus-ring tests use
 * them to hold the rings at 3:1 or more (WCAG 2.1 success criterion 1.4.11, non-text contrast).
 */

/** Relative luminance of `#rrggbb` (or `#rgb`). */
export function luminance(hex: string): number {
  const full = hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join('')}` : hex;
  const n = Number.parseInt(full.slice(1), 16);
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(n >> 16) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
}

/** The contrast ratio of two colours, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The value of a custom property (`--bg: #f5f6f8`) declared anywhere in `css`; throws when absent. */
export function customProperty(css: string, name: string): string {
  const m = new RegExp(`${name}\\s*:\\s*([^;}]+)`).exec(css);
  if (!m) throw new Error(`no ${name} in the stylesheet`);
  return m[1]!.trim();
}

/**
 * The colour of the `outline` declared by the rule whose selector list is exactly `selector`
 * (`var(--x)` resolved through the stylesheet's custom properties); throws when absent.
 */
export function outlineColour(css: string, selector: string): string {
  const escaped = selector.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const rule = new RegExp(`(?:^|[}\\n])\\s*${escaped}\\s*\\{([^}]*)\\}`).exec(css);
  if (!rule) throw new Error(`no rule for ${selector}`);
  const outline = /(?:^|;)\s*outline(?:-color)?\s*:\s*([^;]+)/.exec(rule[1]!);
  if (!outline) throw new Error(`the rule for ${selector} sets no outline`);
  const colour = /#[0-9a-f]{3,6}\b|var\((--[\w-]+)\)/i.exec(outline[1]!);
  if (!colour) throw new Error(`no colour in the outline of ${selector}: ${outline[1]}`);
  return colour[1] ? customProperty(css, colour[1]) : colour[0];
}
