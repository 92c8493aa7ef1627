/** Argument checks run before any network call; they throw `TypeError` with the method and field named. */
import { isObject } from './errors.js';

const KINDS: Record<string, (v: unknown) => boolean> = {
  s: (v) => typeof v === 'string' && v.length > 0,
  b: (v) => typeof v === 'boolean',
  o: isObject,
  a: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
  // The magic-link confirmation number.
  n: (v) => typeof v === 'number' && Number.isInteger(v) && v >= 10 && v <= 99,
};
const NAMES: Record<string, string> = {
  s: 'a non-empty string',
  b: 'a boolean',
  o: 'an object',
  a: 'an array of strings',
  n: 'a 2-digit number (10–99)',
};

/** Checks `input` against the route's path parameters and field rules; returns it as an object. */
export function checkInput(
  method: string,
  path: string,
  input: unknown,
  rules: Readonly<Record<string, string>> | undefined,
): Record<string, unknown> {
  const params = [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
  if (input === undefined || input === null) {
    input = {};
  } else if (!isObject(input)) {
    throw new TypeError(
      `${method}: expected an object argument, got ${Array.isArray(input) ? 'an array' : typeof input}`,
    );
  }
  const obj = input as Record<string, unknown>;
  for (const p of params) {
    const v = obj[p];
    if (typeof v !== 'string' || v === '' || v === '.' || v === '..')
      throw new TypeError(`${method}: "${p}" must be a non-empty string (not "." or "..")`);
  }
  for (const [field, rule] of Object.entries(rules ?? {})) {
    const optional = rule.endsWith('?');
    const kind = rule[0]!;
    const v = obj[field];
    if (optional && (v === undefined || v === null)) continue;
    if (!KINDS[kind]!(v))
      throw new TypeError(`${method}: "${field}" must be ${NAMES[kind]}${optional ? ' when given' : ''}`);
  }
  return obj;
}
