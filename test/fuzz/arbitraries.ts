/**
 * fast-check generators for hostile HTTP requests: bodies of
 * wrong types, missing and extra fields, huge strings and arrays, deep nesting,
 * NUL and invalid UTF-8 bytes, bad base64url, wrong content types, duplicated
 * and oversize headers, and path parameters with encoded separators. The
 * generators know nothing about a route; the harness fills a route's `:params`
 * and picks the credential kind.
 */
import fc from 'fast-check';

/** Field names the routes read, so bodies hit the validators with the wrong value types. */
const FIELDS = [
  'identifier',
  'email',
  'phone',
  'code',
  'token',
  'name',
  'roles',
  'role',
  'redirectUri',
  'redirect_uri',
  'refreshToken',
  'response',
  'credential',
  'id',
  'rawId',
  'type',
  'organizationId',
  'userId',
  'slug',
  'limit',
  'offset',
  'state',
  'codeVerifier',
  'passkeyAvailable',
  'clientDataJSON',
  'attestationObject',
  'authenticatorData',
  'signature',
  'userHandle',
  'totpCode',
  'secret',
  'enabled',
  'revoked',
  'verified',
  'value',
  'key',
  'clientId',
  'clientSecret',
  'issuer',
  'scopes',
  'displayName',
  '__proto__',
  'constructor',
] as const;

const B64URL_BAD = [
  '',
  '=',
  '====',
  'a',
  'ab=c',
  '+/+/',
  'AAAA+',
  '%%%%',
  'YW Jj',
  'ZZZ\u0000',
  'A'.repeat(4097),
  '.',
  '..',
  '\uFFFD\uFFFD',
  'eyJ',
  'eyJhbGciOiJub25lIn0.e30.',
];

/**
 * Nearly valid identifiers: real-looking emails and phones with hostile twists, so validators pass and handlers run.
 */
const nearlyValid = fc.oneof(
  fc.emailAddress(),
  fc.emailAddress().map((e) => e.toUpperCase()),
  fc.emailAddress().map((e) => ` ${e}\u0000`),
  fc.emailAddress().map((e) => 'a'.repeat(300) + e),
  fc.constantFrom(
    'user@xn--bcher-kva.example',
    'üser@bücher.example',
    'a@b',
    '@',
    'a@@b.co',
    '"a b"@x.io',
    'a@[127.0.0.1]',
    'a+tag@x.io',
    'a@x.io\n',
    'admin@localhost',
  ),
  fc.stringMatching(/^\+[0-9]{1,20}$/),
  fc.constantFrom(
    '+15555550100',
    '+1 (555) 555-0100',
    '+4915112345678',
    '00441234567890',
    '+999999999999999',
    '+0',
    '+',
    '+1555555010\u0000',
  ),
  fc.integer({ min: 0, max: 999_999 }).map((n) => String(n).padStart(6, '0')),
  fc.uuid(),
);

/** Values of every JSON type, with edge numbers and hostile strings. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  nearlyValid,
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, true, false, 0, -1, 1e308, -0, 2 ** 53 + 1, '', ' ', '\u0000', 'null', 'true', '[]', '{}'),
  fc.constantFrom(...B64URL_BAD),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** An object with route-ish keys holding values of the wrong type (plus unknown keys). */
const fieldObject = fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 12 })), anyValue, {
  maxKeys: 8,
});

/**
 * A big body, built only when sent: fast-check keeps generated values in maps,
 * and hashing a 250 KB string per case cost more than sending it.
 */
export class LazyBody {
  constructor(
    readonly label: string,
    readonly build: () => string,
  ) {}
}

const repeatTo = (u: string, n: number) => u.repeat(Math.ceil(n / u.length)).slice(0, n);
/** A long string of a short repeated unit: up to a few times the 100 KB body cap. */
const hugeSpec = fc.tuple(fc.string({ minLength: 1, maxLength: 3 }), fc.integer({ min: 1_000, max: 250_000 }));

const deepJson = fc
  .tuple(fc.integer({ min: 50, max: 200_000 }), fc.constantFrom('[', '{"a":', '{"identifier":'))
  .map(([depth, open]) => {
    const close = open === '[' ? ']' : '}';
    return new LazyBody(`nested ${depth} × ${open}`, () => `${open.repeat(depth)}1${close.repeat(depth)}`);
  });

const enc = new TextEncoder();
const concat = (...parts: (string | Uint8Array)[]) => {
  const bytes = parts.map((p) => (typeof p === 'string' ? enc.encode(p) : p));
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let o = 0;
  for (const b of bytes) {
    out.set(b, o);
    o += b.length;
  }
  return out;
};

/** Byte sequences that are not UTF-8 (lone continuation, overlong NUL, surrogate, truncated) and NULs. */
const badBytes = fc.constantFrom(
  new Uint8Array([0xff]),
  new Uint8Array([0x80]),
  new Uint8Array([0xc0, 0x80]),
  new Uint8Array([0xed, 0xa0, 0x80]),
  new Uint8Array([0xf4, 0x90, 0x80, 0x80]),
  new Uint8Array([0xe2, 0x82]),
  new Uint8Array([0x00]),
  new Uint8Array([0xef, 0xbb, 0xbf]),
  new Uint8Array([0xfe, 0xff, 0x00, 0x7b]),
);

export type Body = string | Uint8Array | LazyBody | undefined;

/** The bytes to send for a body. */
export const materialize = (b: Body): string | Uint8Array | undefined => (b instanceof LazyBody ? b.build() : b);

/** Body shapes: valid JSON of the wrong shape, not JSON at all, huge, deep, or with raw invalid bytes. */
export const bodyArb: fc.Arbitrary<Body> = fc.oneof(
  { weight: 4, arbitrary: fieldObject.map((o) => JSON.stringify(o)) },
  { weight: 2, arbitrary: anyValue.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '{',
      '{"a":',
      'nul',
      '[1,]',
      '{"a":1}{"b":2}',
      '\u0000',
      '{"identifier":"a\u0000@x.io"}',
      '{"identifier":"\\ud800"}',
      '1e999999',
      '-',
      '"unterminated',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: hugeSpec.map(
      ([u, n]) =>
        new LazyBody(`3 fields of ${n} × ${JSON.stringify(u)}`, () => {
          const s = repeatTo(u, n);
          return JSON.stringify({ identifier: s, name: s, token: s });
        }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1_000, max: 60_000 }), anyValue)
      .map(
        ([n, v]) =>
          new LazyBody(`arrays of ${n} × ${JSON.stringify(v)?.slice(0, 40)}`, () =>
            JSON.stringify({ roles: Array(n).fill(v), ids: Array(n).fill(1) }),
          ),
      ),
  },
  { weight: 1, arbitrary: hugeSpec.map(([u, n]) => new LazyBody(`${n} × ${JSON.stringify(u)}`, () => repeatTo(u, n))) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...FIELDS), badBytes, fc.string({ maxLength: 8 }))
      .map(([k, bad, tail]) => concat(`{"${k}":"x`, bad, `${tail}","${FIELDS[0]}":"a@b.co"}`)),
  },
  { weight: 1, arbitrary: fc.tuple(badBytes, fc.string({ maxLength: 20 })).map(([bad, s]) => concat(bad, s)) },
);

/** Deep nesting is its own generator (the adapters answered 500 on it before the 64-level depth bound). */
export const deepBodyArb: fc.Arbitrary<Body> = deepJson;

export const contentTypeArb = fc.oneof(
  { weight: 5, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=----x',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      'application/jsonx',
      'application/json, text/html',
      '*/*',
      '',
      ';;;',
    ),
  },
);

/** A path parameter value, already percent-encoded as it goes on the wire. */
export const paramArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%2F',
    'a%2Fb',
    '%2f..%2f',
    '%00',
    'a%00b',
    '..',
    '.',
    '%2e%2e',
    '%2E%2E%2F%2E%2E',
    '%',
    '%zz',
    '%E0%A4%A',
    '%C0%AF',
    '%FF',
    '%5C',
    '..%5C..',
    '%3B',
    'a;b',
    '%3F',
    '%23',
    '%20',
    '%0D%0A',
    '%0D%0ASet-Cookie:%20x=1',
    'null',
    'undefined',
    '0',
    '-1',
    '__proto__',
    'constructor',
    'by-id',
    'me',
    '*',
    '%2A',
    '%25',
    '%252F',
    'x'.repeat(5000),
  ),
  fc.string({ minLength: 1, maxLength: 30 }).map((s) => encodeURIComponent(s)),
  fc.uuid(),
);

/** A query string with bad paging values, repeated keys and encoded junk. */
export const queryArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.constantFrom(
            'limit',
            'offset',
            'search',
            'page',
            'from',
            'to',
            'interval',
            'groupBy',
            'type',
            'userId',
            'days',
            'cursor',
            'x',
          ),
          fc.oneof(
            fc.constantFrom(
              '-1',
              '0',
              '1e309',
              'NaN',
              'abc',
              '99999999999999999999',
              '%00',
              '%',
              '%zz',
              '',
              '1.5',
              '[]',
              'x'.repeat(3000),
            ),
            paramArb,
          ),
        ),
        { maxLength: 4 },
      )
      .map((kv) => `?${kv.map(([k, v]) => `${k}=${v}`).join('&')}`),
  },
);

export type HeaderList = [string, string][];

/** Extra headers: duplicates of the ones the pipeline reads, junk values and (in-process only) big ones. */
export const headersArb = (opts: { maxValueLength: number }): fc.Arbitrary<HeaderList> =>
  fc.array(
    fc.tuple(
      fc.constantFrom(
        'authorization',
        'cookie',
        'content-type',
        'x-svc-service-token',
        'x-svc-client-ip',
        'x-forwarded-for',
        'x-svc-auth-delivery-mode',
        'origin',
        'user-agent',
        'accept',
        'x-junk',
      ),
      fc.oneof(
        fc.constantFrom(
          '',
          'Bearer',
          'Bearer ',
          'Bearer a b',
          'Basic Zm9vOmJhcg==',
          'null',
          '1.2.3.4, 5.6.7.8',
          '::1',
          'external',
          'http://evil.example',
          'svc-access=; svc-access=x',
          '=;=;',
          '\t',
        ),
        fc.stringMatching(/^[\x21-\x7e]{0,40}$/),
        fc.integer({ min: 100, max: opts.maxValueLength }).map((n) => 'a'.repeat(n)),
      ),
    ),
    { maxLength: 4 },
  );
