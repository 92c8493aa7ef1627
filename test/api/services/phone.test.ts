import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import parseWithFullMin from 'libphonenumber-js';
import examples from 'libphonenumber-js/mobile/examples';
import { describe, expect, it } from 'vitest';
import { callingCodeOf, normalizePhone } from '../../../src/services/contact/phone.js';
// @ts-expect-error plain ESM script without types
import { renderPhoneMetadata } from '../../../scripts/gen-phone-metadata.mjs';

const ROOT = join(import.meta.dirname, '../../..');

/** What the package's default export (full `min` metadata) answers. */
function reference(input: string): { e164: string | null; callingCode: string | null } {
  const parsed = parseWithFullMin(input);
  return { e164: parsed?.isValid() ? parsed.number : null, callingCode: parsed?.countryCallingCode ?? null };
}

/** Every country's example number, and variants that are off by a digit or spaced out. */
function inputs(): string[] {
  const out: string[] = [];
  for (const [country, national] of Object.entries(examples as Record<string, string>)) {
    const parsed = parseWithFullMin(national, country as never);
    if (!parsed) continue;
    const e164 = parsed.number;
    out.push(
      e164,
      `${e164}1`,
      e164.slice(0, -1),
      `${e164.slice(0, 4)} ${e164.slice(4, 7)} ${e164.slice(7)}`,
      `+${parsed.countryCallingCode} 0${parsed.nationalNumber}`,
    );
  }
  return out.concat([
    '+1 (415) 555-2671',
    '+44 20 7183 8750',
    '+80012345678',
    '+882 3456 7890',
    '+999 123456789',
    '+',
    '+0',
    '+1 555',
  ]);
}

describe('phone numbers (trimmed metadata)', () => {
  const cases = inputs();

  it('covers every country of the example set', () => {
    expect(cases.length).toBeGreaterThan(5 * 200);
  });

  it('answers exactly as libphonenumber-js with its full min metadata, for every case', () => {
    const differ = cases.filter((input) => {
      const want = reference(input);
      return normalizePhone(input) !== want.e164 || callingCodeOf(input) !== want.callingCode;
    });
    expect(differ).toEqual([]);
  });

  it('accepts real numbers and refuses broken ones', () => {
    expect(normalizePhone(' +44 7400 123456 ')).toBe('+447400123456');
    expect(normalizePhone('+1 (415) 555-2671')).toBe('+14155552671');
    expect(normalizePhone('4155552671')).toBeNull();
    expect(normalizePhone('+1 555')).toBeNull();
    expect(callingCodeOf('+447400123456')).toBe('44');
  });

  it('the committed metadata is what scripts/gen-phone-metadata.mjs makes from the installed package', () => {
    expect(readFileSync(join(ROOT, 'src/services/contact/phone-metadata.generated.ts'), 'utf8')).toBe(
      renderPhoneMetadata(),
    );
  });
});
