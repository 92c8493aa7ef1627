/**
 * Log redaction (contract §5.10): every rule of the list, and what must
 * survive so log lines stay useful.
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../../common/redact.js';

const R = '[REDACTED]';

describe('redact (contract §5.10)', () => {
  it.each([
    ['an email address', 'sent to Jane.Doe+tag@example.co.uk now', `sent to ${R} now`],
    ['an E.164 number', 'sms to +14155550100 failed', `sms to ${R} failed`],
    ['the value after Bearer', 'authorization: Bearer eyJhbGciOi.eyJzdWIi.sig-_x', `authorization: Bearer ${R}`],
    ['the value after bearer (any case)', 'BEARER abc.def.ghi', `BEARER ${R}`],
    [
      'the magic-link path token',
      'POST /magic-link/verify/Zm9vYmFyYmF6?x=1 200',
      `POST /magic-link/verify/${R}?x=1 200`,
    ],
  ])('redacts %s', (_name, input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  const KEYS = [
    'token',
    'refreshToken',
    'verificationToken',
    'code',
    'state',
    'secret',
    'salt',
    'identifier',
    'client_secret',
  ];

  it.each(KEYS)('redacts the JSON value of %s (string, number, escaped quotes)', (key) => {
    const line = JSON.stringify({ before: 'kept', [key]: 'sensitive-value-1', after: 42 });
    expect(redact(line)).toBe(`{"before":"kept","${key}":"${R}","after":42}`);
    expect(redact(`{"${key}": 123456}`)).toBe(`{"${key}": "${R}"}`);
    const escaped = redact(`{"${key}":"with \\"quotes\\" inside","n":1}`);
    expect(escaped).toBe(`{"${key}":"${R}","n":1}`);
  });

  it.each(KEYS)('redacts the query value of %s', (key) => {
    expect(redact(`GET /cb?x=1&${key}=sensitive-value-1&y=2`)).toBe(`GET /cb?x=1&${key}=${R}&y=2`);
    expect(redact(`GET /cb?${key}=sensitive-value-1`)).toBe(`GET /cb?${key}=${R}`);
  });

  it('redacts everything in one line at once and never leaks a fragment', () => {
    const secrets = ['a@b.co', '+447700900123', 'tok.en.x', 'mlTOKEN123', '654321', 'st4te', 'OTPCODE'];
    const line =
      `user a@b.co phone +447700900123 auth Bearer tok.en.x url /magic-link/verify/mlTOKEN123 ` +
      `body {"code":"654321","state":"st4te"} query ?verificationToken=OTPCODE`;
    const out = redact(line);
    for (const s of secrets) expect(out).not.toContain(s);
    expect(out).toContain('/magic-link/verify/');
  });

  it('leaves ordinary text, key names that merely contain a sensitive word, and short numbers alone', () => {
    for (const line of [
      'GET /users/me 200 12ms',
      'status 401 invalid_refresh_token',
      'retry in 900 s',
      '{"tokenType":"x","codes":3}',
      'port 8787',
    ]) {
      expect(redact(line)).toBe(line);
    }
  });
});

describe("a failed query's bound parameters (found by the soak)", () => {
  it('withholds them from a real drizzle error, raw and inside a JSON log line, and keeps the statement', async () => {
    const { createClient } = await import('@libsql/client');
    const { drizzle } = await import('drizzle-orm/libsql');
    const { sql } = await import('drizzle-orm');
    const { createLogger } = await import('../../../src/log.js');
    const client = createClient({ url: ':memory:' });
    const db = drizzle(client);
    const err = await db
      .run(sql`INSERT INTO missing_table (ip, token_hash) VALUES (${'203.0.113.99'}, ${'hash-ZYX-987'})`)
      .then(
        () => undefined,
        (e: Error) => e,
      );
    client.close();
    expect(err?.message).toContain('203.0.113.99'); // drizzle puts the parameters in the message
    expect(redact(err!.message)).not.toMatch(/203\.0\.113\.99|hash-ZYX-987/);
    expect(redact(err!.message)).toContain('INSERT INTO missing_table');
    const lines: string[] = [];
    createLogger((_level, line) => lines.push(line)).log('warn', 'rate limiter unavailable', {
      error: err!.message,
      after: 'kept',
    });
    expect(lines[0]).not.toMatch(/203\.0\.113\.99|hash-ZYX-987/);
    expect(lines[0]).toContain('params: [REDACTED]');
    expect(JSON.parse(lines[0]!.slice(lines[0]!.indexOf('{')))).toMatchObject({ after: 'kept' });
  });

  it('keeps the driver error that says why (its code and message) on the log line, still without the parameters', async () => {
    const { createClient } = await import('@libsql/client');
    const { drizzle } = await import('drizzle-orm/libsql');
    const { sql } = await import('drizzle-orm');
    const { createLogger, errorSummary } = await import('../../../src/log.js');
    const client = createClient({ url: ':memory:' });
    await client.execute('CREATE TABLE t (k TEXT PRIMARY KEY)');
    const db = drizzle(client);
    await db.run(sql`INSERT INTO t (k) VALUES (${'secret-key-XYZ'})`);
    const err = await db.run(sql`INSERT INTO t (k) VALUES (${'secret-key-XYZ'})`).then(
      () => undefined,
      (e: Error) => e,
    );
    client.close();
    const lines: string[] = [];
    const log = createLogger((_level, line) => lines.push(line));
    log.log('warn', 'global rate limiter unavailable; failing open', { error: errorSummary(err) });
    log.log('error', 'unhandled error', { error: err });
    for (const line of lines) {
      expect(line).toContain('SQLITE_CONSTRAINT');
      expect(line).toContain('UNIQUE constraint failed: t.k');
      expect(line).not.toContain('secret-key-XYZ');
    }
    expect(errorSummary(new Error('plain'))).toBe('plain');
    expect(errorSummary('text')).toBe('text');
  });
});
