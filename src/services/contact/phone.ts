/**
 * Phone numbers (contract §0.5): parse, validate, E.164 and calling code.
 * libphonenumber-js's `core` build with the generated metadata
 * (`phone-metadata.generated.ts`: the `min` set without national formatting
 * rules, which svc never uses) — the same answers as the package's default
 * export at half the metadata in the Workers bundle.
 */
import { parsePhoneNumberFromString, type PhoneNumber } from 'libphonenumber-js/core';
import { PHONE_METADATA } from './phone-metadata.generated.js';

function parse(input: string): PhoneNumber | undefined {
  return parsePhoneNumberFromString(input, PHONE_METADATA);
}

/**
 * Must start with `+` and be a valid number; returned as E.164, or null.
 * @example normalizePhone(' +44 7400 123456 ') // '+447400123456'
 */
export function normalizePhone(raw: string): string | null {
  const input = raw.trim();
  if (!input.startsWith('+')) return null;
  const parsed = parse(input);
  return parsed?.isValid() ? parsed.number : null;
}

/**
 * The country calling code of an E.164 number, or null.
 * @example callingCodeOf('+447400123456') // '44'
 */
export function callingCodeOf(phoneE164: string): string | null {
  return parse(phoneE164)?.countryCallingCode ?? null;
}
