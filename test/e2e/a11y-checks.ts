/**
 * The checks of test/e2e/a11y.e2e.test.ts (docs/accessibility.md): axe-core over a page state, the width
 * of the page at a narrow viewport, and where keyboard focus is.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT } from '../runtime/processes.js';
import { screenshot } from './harness.js';

const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
/** States also saved at 320 px (test/e2e/artifacts/a11y-320-*.png), to look at the narrow layout. */
const SHOOT_AT_320 = new Set(['sign-in start', 'account', 'account TOTP enrolment', 'console users', 'console config']);

/** axe-core over the whole document: one line per violation, with the selectors of its nodes. */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(async (values) => {
    const axe = (window as unknown as { axe: any }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values } });
    return result.violations.map(
      (v: { id: string; impact: string; nodes: { target: string[] }[] }) =>
        `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
  }, WCAG_TAGS);
}

/**
 * The page's width at a `width` px viewport (then back to the previous size), and the outermost
 * elements that stick out past it (to say what to fix).
 */
export async function widthAt(
  page: Page,
  width: number,
  shot?: string,
): Promise<{ scrollWidth: number; culprits: string[] }> {
  const before = page.viewportSize()!;
  await page.setViewportSize({ width, height: 640 });
  const measured = await page.evaluate(
    (limit) =>
      new Promise<{ scrollWidth: number; culprits: string[] }>((resolve) =>
        requestAnimationFrame(() => {
          const sticksOut = (el: Element | null) => !!el && el.getBoundingClientRect().right > limit + 0.5;
          const name = (el: Element) =>
            el.tagName.toLowerCase() + (el.id ? `#${el.id}` : '') + [...el.classList].map((c) => `.${c}`).join('');
          const culprits = [...document.body.querySelectorAll('*')]
            .filter(
              (el) =>
                sticksOut(el) &&
                // An absolutely positioned box escapes the overflow of a scroller that is not positioned.
                (['absolute', 'fixed'].includes(getComputedStyle(el).position) ||
                  (!sticksOut(el.parentElement) && getComputedStyle(el.parentElement!).overflowX === 'visible')),
            )
            .slice(0, 4)
            .map((el) => `${name(el.parentElement!)} > ${name(el)}`);
          resolve({ scrollWidth: document.documentElement.scrollWidth, culprits });
        }),
      ),
    width,
  );
  if (shot) await screenshot(page, shot);
  await page.setViewportSize(before);
  return measured;
}

/** Runs axe and the 320 px reflow check on the current state; problems go to `findings`. */
export async function check(page: Page, state: string, findings: string[]): Promise<void> {
  for (const v of await axeViolations(page)) findings.push(`${state}: ${v}`);
  const slug = state.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  const { scrollWidth, culprits } = await widthAt(page, 320, SHOOT_AT_320.has(state) ? `a11y-320-${slug}` : undefined);
  if (scrollWidth > 320)
    findings.push(`${state}: reflow: the page is ${scrollWidth} px wide at a 320 px viewport (${culprits.join('; ')})`);
  await screenshot(page, `a11y-${slug}`);
}

/** Compares attributes (`text`: the text content; null: absent) of the first match of `selector`. */
export async function expectAttributes(
  page: Page,
  selector: string,
  expected: Record<string, string | null>,
  findings: string[],
): Promise<void> {
  const actual = await page.evaluate(
    ([s, names]) => {
      const el = document.querySelector(s);
      return Object.fromEntries(
        names.map((n) => [n, !el ? 'no such element' : n === 'text' ? el.textContent : el.getAttribute(n)]),
      );
    },
    [selector, Object.keys(expected)] as const,
  );
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    findings.push(`${selector}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** Waits (briefly) for focus on `selector`'s element; a miss goes to `findings`. */
export async function expectFocus(page: Page, selector: string, findings: string[]): Promise<void> {
  const on = () => page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector);
  for (let i = 0; i < 20 && !(await on()); i++) await page.waitForTimeout(50);
  if (!(await on())) findings.push(`focus: expected on ${selector}, found on ${await focused(page)}`);
}

/** `#id` (or the tag name) of the focused element. */
export const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el?.id ? `#${el.id}` : (el?.tagName.toLowerCase() ?? null);
  });

/** Presses Tab until `selector` has focus (keyboard reachability); fails after `max` presses. */
export async function tabTo(page: Page, selector: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`${selector} was not reached with ${max} presses of Tab (focus on ${await focused(page)})`);
}
