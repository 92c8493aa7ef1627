/**
 * The admin console's focus ring is visible: at least 3:1 (WCAG 2.1 success criterion 1.4.11) against every
 * colour it is drawn on. The ring sits outside the focused control (outline-offset), so it meets the page
 * background, the white panels and, in the sidebar, the dark sidebar.
 *
 * The numbers today: --focus #2f5bd3 is 5.90:1 on white and 5.46:1 on the page (#f5f6f8); --focus-on-dark
 * #9db5f5 is 8.60:1 on the sidebar (#141a26). The old ring (#9db5f5 everywhere) was 2.03:1 on white and
 * 1.87:1 on the page.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ASSETS } from '../../adapter/admin-console/assets.generated.js';
import { contrastRatio, customProperty, outlineColour } from '../helpers/contrast.js';
import { ROOT } from '../runtime/processes.js';

const css = readFileSync(join(ROOT, 'adapter/admin-console/static/console.css'), 'utf8');

describe('admin console focus ring', () => {
  it('is at least 3:1 against white panels and the page background', () => {
    const ring = outlineColour(css, ':focus-visible');
    for (const background of ['#ffffff', customProperty(css, '--panel'), customProperty(css, '--bg')])
      expect(contrastRatio(ring, background), `${ring} on ${background}`).toBeGreaterThanOrEqual(3);
  });

  it('is at least 3:1 against the dark sidebar', () => {
    const ring = outlineColour(css, '.side :focus-visible');
    const sidebar = customProperty(css, '--side-bg');
    expect(contrastRatio(ring, sidebar), `${ring} on ${sidebar}`).toBeGreaterThanOrEqual(3);
  });

  it('is what the package serves (assets.generated.ts is regenerated from the stylesheet)', () => {
    expect(ASSETS['console.css']!.body).toBe(css);
  });

  it('computes ratios as WCAG does (known pairs)', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#9db5f5', '#ffffff')).toBeCloseTo(2.03, 2);
    expect(contrastRatio('#2f5bd3', '#f5f6f8')).toBeCloseTo(5.46, 2);
  });
});
