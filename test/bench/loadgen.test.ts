import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ResponseParser,
  createLoadGenerator,
  runLoad,
  serializeRequest,
  type ParsedHead,
} from '../../bench/lib/loadgen.js';

const cl = (status: number, body: string, extra = '') =>
  `HTTP/1.1 ${status} X\r\nContent-Type: text/plain\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const chunked = (status: number, chunks: string[], trailer = '') =>
  `HTTP/1.1 ${status} OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunks.map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`).join('')}0\r\n${trailer}\r\n`;

/** A stream of responses whose bodies look like HTTP on purpose (a parser reading bodies as heads would miscount). */
const STREAM = [
  cl(200, '{"ok":true}'),
  chunked(200, ['HTTP/1.1 500 Nope\r\n\r\n', 'x'.repeat(300), '\r\n\r\n']),
  `HTTP/1.1 100 Continue\r\n\r\n${cl(201, '')}`,
  'HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n',
  `HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n5;name=value\r\nhello\r\n0\r\nx-trailer: 1\r\nx-other: 2\r\n\r\n`,
  cl(404, 'Content-Length: 99\r\n\r\n'),
  cl(200, 'é'.repeat(10)),
  'HTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n',
  cl(503, 'bye', 'Connection: close\r\n'),
];
const EXPECTED = [
  [200, true],
  [200, true],
  [201, true],
  [204, true],
  [200, true],
  [404, true],
  [200, true],
  [304, true],
  [503, false],
];

function parseAll(chunks: Buffer[]): ParsedHead[] {
  const out: ParsedHead[] = [];
  const p = new ResponseParser((r) => out.push(r));
  for (const c of chunks) p.feed(c);
  expect(p.idle).toBe(true);
  return out;
}
const summary = (rs: ParsedHead[]) => rs.map((r) => [r.status, r.keepAlive]);

describe('ResponseParser', () => {
  const all = Buffer.from(STREAM.join(''), 'utf8');

  it('parses many responses delivered in one chunk', () => {
    expect(summary(parseAll([all]))).toEqual(EXPECTED);
  });

  it('parses the same bytes split at every possible boundary, and byte by byte', () => {
    for (let cut = 1; cut < all.length; cut++) {
      expect(summary(parseAll([all.subarray(0, cut), all.subarray(cut)]))).toEqual(EXPECTED);
    }
    expect(summary(parseAll([...all].map((b) => Buffer.from([b]))))).toEqual(EXPECTED);
  });

  it('parses random splits into many pieces', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const pieces: Buffer[] = [];
      for (let i = 0; i < all.length; ) {
        const n = 1 + Math.floor(rand() * 40);
        pieces.push(all.subarray(i, i + n));
        i += n;
      }
      expect(summary(parseAll(pieces))).toEqual(EXPECTED);
    }
  });

  it('does not call back before the last body byte, and keeps the head of each answer', () => {
    const got: ParsedHead[] = [];
    const p = new ResponseParser((r) => got.push(r));
    const one = Buffer.from(chunked(500, ['abc', 'def']));
    p.feed(one.subarray(0, one.length - 1));
    expect(got).toEqual([]);
    expect(p.idle).toBe(false);
    p.feed(one.subarray(one.length - 1));
    expect(got.map((r) => r.status)).toEqual([500]);
    expect(got[0]!.head.split('\r\n')[0]).toBe('HTTP/1.1 500 OK');
  });

  it('reads a body without length up to the close, and refuses a close mid-answer', () => {
    const got: number[] = [];
    const p = new ResponseParser((r) => got.push(r.status));
    p.feed(Buffer.from('HTTP/1.0 200 OK\r\n\r\nsome body'));
    expect(got).toEqual([]);
    p.end();
    expect(got).toEqual([200]);
    const cut = new ResponseParser(() => {});
    cut.feed(Buffer.from(cl(200, '0123456789').slice(0, -3)));
    expect(() => cut.end()).toThrow(/middle of a response/);
  });

  it('throws on bytes that are not an HTTP response', () => {
    expect(() => new ResponseParser(() => {}).feed(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow(/not an HTTP/);
    expect(() => new ResponseParser(() => {}).feed(Buffer.from('HTTP/1.1 2xx OK\r\n\r\n'))).toThrow(/bad status/);
    expect(() =>
      new ResponseParser(() => {}).feed(Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n')),
    ).toThrow(/chunk size/);
    expect(() =>
      new ResponseParser(() => {}).feed(
        Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\nab\r\n'),
      ),
    ).toThrow(/CRLF/);
  });

  it('serializes a request with host, headers and content-length', () => {
    expect(serializeRequest('127.0.0.1:80', { path: '/a?b=1', headers: { cookie: 'x=1' } })).toBe(
      'GET /a?b=1 HTTP/1.1\r\nhost: 127.0.0.1:80\r\ncookie: x=1\r\n\r\n',
    );
    expect(serializeRequest('h', { method: 'POST', path: '/', body: 'é' })).toBe(
      'POST / HTTP/1.1\r\nhost: h\r\ncontent-length: 2\r\n\r\né',
    );
  });
});

describe('runLoad against a node:http server', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const cookie = req.headers.cookie ?? '';
      if (cookie === 'who=bad')
        return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      if (cookie === 'who=close')
        return void res.writeHead(200, { connection: 'close', 'content-length': '2' }).end('ok');
      if (cookie === 'who=chunked') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('part one ');
        return void setImmediate(() => res.end('part two'));
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' }).end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('counts 2xx, reports non-2xx apart (not in req/s), and follows chunked bodies and Connection: close', async () => {
    const r = await runLoad({
      url,
      connections: 4,
      durationMs: 1000, // long enough for every connection to get answers on a loaded machine
      requests: [
        { path: '/', headers: { cookie: 'who=good' } },
        { path: '/', headers: { cookie: 'who=bad' } },
        { path: '/', headers: { cookie: 'who=chunked' } },
        { path: '/', headers: { cookie: 'who=close' } },
      ],
    });
    expect(r.errors, String(r.errorSample)).toBe(0);
    expect(r.ok).toBeGreaterThan(2);
    expect(r.non2xx).toBeGreaterThan(0);
    expect(r.statuses['401']).toBe(r.non2xx);
    expect(r.statuses['200']).toBe(r.ok);
    expect(r.non2xxSample).toMatch(/^HTTP\/1\.1 401 /);
    expect(r.rps).toBeCloseTo(r.ok / 1, 5);
    expect(r.reconnects).toBeGreaterThan(0); // the Connection: close connection is reopened
    expect(r.p50Ms).toBeGreaterThan(0);
    expect(r.p99Ms).toBeGreaterThanOrEqual(r.p50Ms);
  });

  it('reports a refused connection as errors, not as answers', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const r = await runLoad({
      url: `http://127.0.0.1:${port}`,
      connections: 2,
      durationMs: 100,
      requests: [{ path: '/' }],
    });
    expect(r.ok).toBe(0);
    expect(r.errors).toBeGreaterThan(0);
    expect(r.errorSample).toMatch(/ECONNREFUSED/);
  });

  it('runs the same loop in a worker thread', async () => {
    const gen = createLoadGenerator();
    try {
      const [a, b] = [
        await gen.run({ url, connections: 2, durationMs: 500, requests: [{ path: '/' }] }),
        await gen.run({
          url,
          connections: 2,
          durationMs: 500,
          requests: [{ path: '/', headers: { cookie: 'who=bad' } }],
        }),
      ];
      expect(a.ok).toBeGreaterThan(0);
      expect(a.non2xx).toBe(0);
      expect(b.ok).toBe(0);
      expect(b.non2xx).toBeGreaterThan(0);
    } finally {
      await gen.close();
    }
  });
});
