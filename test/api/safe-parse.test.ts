/**
 * `safeParse` (src/safe-parse.ts): zod/mini loads no locale, so without it
 * every issue would read "Invalid input"; the envelope's messages (contract
 * §0.4) are zod's English ones, as with zod classic, and a locale the host
 * configured still wins.
 */
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { configSchemas } from '../../src/config/keys.js';
import { codeBody } from '../../src/routes/otp.js';
import { safeParse } from '../../src/safe-parse.js';

const saved = z.config().localeError;
afterEach(() => z.config({ localeError: saved }));

describe('safeParse', () => {
  it("answers zod's English messages when no locale is configured", () => {
    z.config({ localeError: undefined });
    expect(z.safeParse(codeBody, {}).error?.issues[0]?.message).toBe('Invalid input');
    expect(safeParse(codeBody, {}).error?.issues).toEqual([
      {
        expected: 'string',
        code: 'invalid_type',
        path: ['verificationToken'],
        message: 'Invalid input: expected string, received undefined',
      },
    ]);
    expect(safeParse(configSchemas.rate_limit, 1.5).error?.issues[0]?.message).toBe(
      'Invalid input: expected int, received number',
    );
    expect(safeParse(configSchemas.app_name, '   ').error?.issues[0]?.message).toBe(
      'Too small: expected string to have >=1 characters',
    );
  });

  it('keeps the messages of the schemas themselves and a locale the host configured', () => {
    expect(safeParse(configSchemas.access_token_ttl, '15x').error?.issues[0]?.message).toBe('must match <n>s|m|h|d');
    z.config({ localeError: () => 'host message' });
    expect(safeParse(codeBody, {}).error?.issues[0]?.message).toBe('host message');
  });

  it('returns the parsed value on success', () => {
    expect(safeParse(configSchemas.app_name, '  svc  ')).toEqual({ success: true, data: 'svc' });
  });
});
