/**
 * The client-address parser and the per-IP limiter key:
 * every spelling of one address is one string, every address of one IPv6
 * prefix is one key, and anything that is not an address is refused.
 */
import { describe, expect, it } from 'vitest';
import { normalizeIp, parseIp, rateLimitKey } from '../../../src/http/ip-address.js';

const key = (value: string, prefixBits?: number) => {
  const address = parseIp(value);
  if (!address) throw new Error(`not an address: ${value}`);
  return rateLimitKey(address, prefixBits);
};

describe('normalizeIp', () => {
  it.each([
    ['192.0.2.4', '192.0.2.4'],
    [' 192.0.2.4 ', '192.0.2.4'],
    ['::ffff:192.0.2.4', '192.0.2.4'],
    ['::FFFF:192.0.2.4', '192.0.2.4'],
    ['0:0:0:0:0:ffff:c000:0204', '192.0.2.4'],
    ['::ffff:c000:204', '192.0.2.4'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:db8::c000:204', '2001:db8::c000:204'],
    ['2001:db8::192.0.2.4', '2001:db8::c000:204'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['::', '::'],
    ['::1', '::1'],
    ['1::', '1::'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['fe80::1%eth0', 'fe80::1'],
    ['fe80::1%25', 'fe80::1'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeIp(input)).toBe(expected);
  });

  it.each([
    '',
    ':',
    ':::',
    ':::::',
    '::::::::',
    '1:::2',
    '1::2::3',
    ':1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7::8',
    '12345::1',
    'g::1',
    '::1.2.3',
    '::256.1.1.1',
    '::01.2.3.4',
    '1.2.3.4::',
    '1.2.3.4:1::',
    '::ffff:1.2.3.4.5',
    '256.0.0.1',
    '01.2.3.4',
    '1.2.3',
    'not-an-ip',
    'localhost',
    '2001:db8::1%',
    '2001:db8::1%eth0/1',
    '2001:db8::1%<script>',
    '2001:db8::1/64',
    '[2001:db8::1',
    '2001:db8::1 2001:db8::2',
  ])('refuses %j', (input) => {
    expect(normalizeIp(input)).toBeNull();
  });

  it('refuses absent and oversized values', () => {
    expect(normalizeIp(undefined)).toBeNull();
    expect(normalizeIp(null)).toBeNull();
    expect(normalizeIp(`fe80::1%${'a'.repeat(65)}`)).toBeNull();
    expect(normalizeIp(`${'0:'.repeat(5000)}:1`)).toBeNull();
    expect(normalizeIp(`2001:db8::1${'%'.repeat(10_000)}a`)).toBeNull();
  });
});

describe('rateLimitKey', () => {
  it('keys IPv4, and IPv4-mapped IPv6, by the whole address whatever the prefix', () => {
    expect(key('192.0.2.4')).toBe('192.0.2.4');
    expect(key('::ffff:192.0.2.4', 48)).toBe('192.0.2.4');
    expect(key('192.0.2.5')).not.toBe(key('192.0.2.4'));
  });

  it('keys IPv6 by its /64 by default, the same for every spelling and every address in it', () => {
    const spellings = [
      '2001:db8:1:2::1',
      '2001:DB8:1:2::ABCD',
      '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:db8:1:2:1::',
      '2001:db8:1:2:0:ffff:192.0.2.1',
      '[2001:db8:1:2::9]',
      '2001:db8:1:2::9%eth0',
    ];
    for (const s of spellings) expect(key(s), s).toBe('2001:db8:1:2::/64');
    expect(key('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(key('::1')).toBe('::/64');
  });

  it('masks to /48 and /56, inside a group too', () => {
    expect(key('2001:db8:1:2::1', 48)).toBe('2001:db8:1::/48');
    expect(key('2001:db8:1:ffff::1', 48)).toBe('2001:db8:1::/48');
    expect(key('2001:db8:2::1', 48)).toBe('2001:db8:2::/48');
    expect(key('2001:db8:1:12ff::1', 56)).toBe('2001:db8:1:1200::/56');
    expect(key('2001:db8:1:1200::1', 56)).toBe(key('2001:db8:1:12ab::2', 56));
    expect(key('2001:db8:1:1300::1', 56)).not.toBe(key('2001:db8:1:12ab::2', 56));
    expect(key('2001:db8:abcd::1', 33)).toBe('2001:db8:8000::/33');
  });

  it('keys the whole address at /128, one key for every spelling of it', () => {
    expect(key('2001:db8:1:2::1', 128)).toBe('2001:db8:1:2::1/128');
    expect(key('2001:0DB8:0001:0002:0000:0000:0000:0001', 128)).toBe('2001:db8:1:2::1/128');
    expect(key('2001:db8:1:2::2', 128)).not.toBe(key('2001:db8:1:2::1', 128));
  });

  it('refuses a prefix outside 0–128', () => {
    expect(() => key('2001:db8::1', 129)).toThrow(RangeError);
    expect(() => key('2001:db8::1', 64.5)).toThrow(RangeError);
  });
});
