import { describe, expect, it } from 'vitest';
import { grants, satisfiesAny } from '../../../common/roles.js';

describe('role satisfaction (contract §5.9)', () => {
  const ROLES = ['admin', 'admin:write', 'admin:read'] as const;
  // The contract's table (§5.9): granted → the required roles it satisfies.
  const TABLE: Record<(typeof ROLES)[number], readonly string[]> = {
    admin: ['admin', 'admin:write', 'admin:read'],
    'admin:write': ['admin:write', 'admin:read'],
    'admin:read': ['admin:read'],
  };

  for (const granted of ROLES) {
    for (const required of ROLES) {
      const expected = TABLE[granted].includes(required);
      it(`${granted} ${expected ? 'satisfies' : 'does not satisfy'} ${required}`, () => {
        expect(grants(granted, required)).toBe(expected);
        expect(satisfiesAny([granted], [required])).toBe(expected);
      });
    }
  }

  it('lets a bare role satisfy every role under it', () => {
    expect(grants('admin', 'admin:users:read')).toBe(true);
    expect(grants('billing', 'admin:read')).toBe(false);
  });

  it('matches wildcards on the prefix and below only', () => {
    expect(grants('org:*', 'org')).toBe(true);
    expect(grants('org:*', 'org:members:write')).toBe(true);
    expect(grants('org:*', 'organization:read')).toBe(false);
    expect(grants('admin:read', 'admin:*')).toBe(false);
  });

  it('lets a scoped write satisfy the read of the same scope and nothing else', () => {
    expect(grants('members:write', 'members:read')).toBe(true);
    expect(grants('organization:write', 'members:read')).toBe(false);
    expect(grants('members:read', 'members:write')).toBe(false);
    expect(grants('a:b:write', 'a:b:read')).toBe(true);
    expect(grants('a:b:write', 'a:read')).toBe(false);
    expect(grants('a:write', 'a:b:read')).toBe(false);
  });

  it('trims values and never matches an empty role', () => {
    expect(grants(' admin ', 'admin:read ')).toBe(true);
    expect(grants('', '')).toBe(false);
    expect(grants('admin', ' ')).toBe(false);
  });

  it('checks any-of over both lists and refuses a non-array grant', () => {
    expect(satisfiesAny(['user', 'admin:read'], ['admin:write', 'admin:read'])).toBe(true);
    expect(satisfiesAny(['user'], ['admin:read'])).toBe(false);
    expect(satisfiesAny('admin', ['admin'])).toBe(false);
    expect(satisfiesAny([1, null, 'admin'], ['admin:read'])).toBe(true);
  });
});
