import { describe, expect, it } from 'vitest';
import { normaliseEmail, normalisePhone, parseIdentifier } from '../../../src/services/contact/identifier.js';

describe('identifier normalisation (contract §0.5)', () => {
  it('trims and lower-cases emails and enforces the shape and 254 characters', () => {
    expect(normaliseEmail('  Alice@Example.COM ')).toBe('alice@example.com');
    expect(normaliseEmail('alice@example')).toBeNull();
    expect(normaliseEmail('a b@example.com')).toBeNull();
    expect(normaliseEmail(`${'a'.repeat(243)}@example.com`)).toBeNull();
    expect(normaliseEmail(`${'a'.repeat(242)}@example.com`)).toHaveLength(254);
  });

  it('requires a leading + and a valid number, stored as E.164', () => {
    expect(normalisePhone('+1 (415) 555-2671')).toBe('+14155552671');
    expect(normalisePhone('+44 20 7183 8750')).toBe('+442071838750');
    expect(normalisePhone('4155552671')).toBeNull();
    expect(normalisePhone('+1 555')).toBeNull();
    expect(normalisePhone('+999 123456789')).toBeNull();
  });

  it('treats anything with @ as an email and everything else as a phone', () => {
    expect(parseIdentifier('bob@example.com')).toEqual({ type: 'email', value: 'bob@example.com' });
    expect(parseIdentifier('+14155552671')).toEqual({ type: 'phone', value: '+14155552671' });
    expect(parseIdentifier('+1415@5552671')).toBeNull();
    expect(parseIdentifier('bob')).toBeNull();
  });
});
