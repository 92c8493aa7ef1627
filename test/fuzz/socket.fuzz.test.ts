/**
 * The auth API over a real socket (@hono/node-server, as src/node.ts serves
 * it): the header and size cases that `app.request` cannot show — declared and
 * streamed oversize bodies, a lying Content-Length, duplicated headers and
 * large header values — with the properties of the in-process suite.
 */
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { serveNode } from '../../src/node.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApi, type TestApi } from '../helpers/make-app.js';
import { routesOf } from './api-target.js';
import { headersArb, paramArb } from './arbitraries.js';
import {
  brokenProperty,
  countDiff,
  fillPath,
  FUZZ_SEED,
  fuzzRuns,
  paramCount,
  routeSeed,
  rowCounter,
  secretNeedles,
  withDeadline,
  type Answer,
} from './properties.js';

let t: TestApi;
let server: ServerType;
let port: number;
let counts: () => Promise<Record<string, number>>;
const needles = await secretNeedles();

beforeAll(async () => {
  t = await makeApi({ sender: null });
  counts = await rowCounter(t.client);
  // Served exactly as src/node.ts serves the API (request bound, parser refusals in the envelope).
  server = serveNode(t.api.fetch, { port: 0, hostname: '127.0.0.1', requestTimeoutMs: 5000 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.close();
});

/** Writes a raw HTTP/1.1 request (so headers may repeat and lengths may lie) and reads the answer. */
function raw(head: string, body: Uint8Array | string = ''): Promise<Answer & { rawHead: string }> {
  return withDeadline(
    head.split('\r\n')[0]!,
    (signal) =>
      new Promise((resolve, reject) => {
        const sock = connect(port, '127.0.0.1');
        signal.addEventListener('abort', () => sock.destroy());
        const chunks: Buffer[] = [];
        sock.on('data', (d) => chunks.push(d));
        sock.on('error', (e) =>
          (e as NodeJS.ErrnoException).code === 'ECONNRESET' || (e as NodeJS.ErrnoException).code === 'EPIPE'
            ? undefined
            : reject(e),
        );
        sock.on('close', () => {
          const text = Buffer.concat(chunks).toString('latin1');
          const split = text.indexOf('\r\n\r\n');
          const rawHead = split < 0 ? text : text.slice(0, split);
          const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(rawHead)?.[1] ?? 0);
          let payload = split < 0 ? '' : text.slice(split + 4);
          const length = /content-length: (\d+)/i.exec(rawHead);
          // Only the first answer counts: bytes past a short Content-Length are a second (junk) request.
          if (/transfer-encoding: chunked/i.test(rawHead)) payload = dechunk(payload);
          else if (length) payload = payload.slice(0, Number(length[1]));
          resolve({
            status,
            text: Buffer.from(payload, 'latin1').toString('utf8'),
            contentType: /content-type: ([^\r\n]+)/i.exec(rawHead)?.[1] ?? null,
            rawHead,
          });
        });
        sock.write(`${head}connection: close\r\n\r\n`);
        sock.end(body);
      }),
  );
}

function dechunk(s: string): string {
  let out = '';
  let i = 0;
  for (;;) {
    const eol = s.indexOf('\r\n', i);
    if (eol < 0) return out;
    const n = parseInt(s.slice(i, eol), 16);
    if (!n) return out;
    out += s.slice(eol + 2, eol + 2 + n);
    i = eol + 2 + n + 2;
  }
}

let parserRejects = 0;
afterAll(() => {
  if (parserRejects)
    console.log(
      `socket fuzz: ${parserRejects} requests refused by Node's HTTP parser (answered 400 invalid_request in the envelope by src/node.ts)`,
    );
});

const routes = routesOf((await makeApi()).api);
const RUNS = Math.ceil(fuzzRuns(40) / 10);

const socketCase = (pattern: string) =>
  fc.record({
    params: fc.array(
      paramArb.map((p) => p.replace(/[\s]/g, '')),
      { minLength: paramCount(pattern), maxLength: paramCount(pattern) },
    ),
    headers: headersArb({ maxValueLength: 6_000 }),
    bodyBytes: fc.constantFrom(0, 10, 100 * 1024 - 1, 100 * 1024 + 1, 300_000),
    lie: fc.constantFrom<'none' | 'short' | 'long' | 'chunked'>('none', 'none', 'short', 'long', 'chunked'),
    contentType: fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8'),
  });

describe(`auth API over a socket (seed ${FUZZ_SEED}, ${RUNS} cases per route)`, () => {
  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (key, { method, path }) => {
    await fc.assert(
      fc.asyncProperty(socketCase(path), async (c) => {
        const before = await counts();
        const body = c.bodyBytes ? `{"identifier":"${'a'.repeat(Math.max(0, c.bodyBytes - 17))}"}` : '';
        const lines = [
          `${method} ${fillPath(path, c.params)} HTTP/1.1`,
          'host: 127.0.0.1',
          `content-type: ${c.contentType}`,
        ];
        for (const [k, v] of c.headers) if (!/[\r\n\0]/.test(v) && k !== 'content-type') lines.push(`${k}: ${v}`);
        let payload = body;
        if (c.lie === 'chunked') {
          lines.push('transfer-encoding: chunked');
          payload = body ? `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n` : '0\r\n\r\n';
        } else if (c.lie === 'short') lines.push(`content-length: ${Math.floor(Buffer.byteLength(body) / 2)}`);
        else if (c.lie === 'long') lines.push(`content-length: ${Buffer.byteLength(body) + 10}`);
        else lines.push(`content-length: ${Buffer.byteLength(body)}`);
        // A body shorter than its declared length would wait for bytes that never come; the socket end closes it.
        const answer = await raw(`${lines.join('\r\n')}\r\n`, payload);
        if (answer.status === 0) return; // the server closed a request it could not frame (a lying length)
        // Node's parser refuses a request it cannot frame before the app runs; src/node.ts answers it in the envelope.
        if (answer.status === 400 && answer.text.includes('"invalid_request"')) parserRejects++;
        const broken = brokenProperty(answer, needles);
        if (broken)
          throw new Error(
            `${broken}\n  case: ${lines[0]} ${c.lie} ${c.bodyBytes} B ${JSON.stringify(c.headers.map(([k, v]) => [k, v.slice(0, 30)]))}`,
          );
        if (answer.status >= 400) {
          const diff = countDiff(before, await counts());
          if (diff) throw new Error(`${diff}\n  case: ${lines[0]}`);
        }
      }),
      { seed: routeSeed(`socket ${key}`), numRuns: RUNS, endOnFailure: true },
    );
  });

  it('answers a declared oversize body with the 413 envelope before reading it', async () => {
    const res = await raw(
      'POST /login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 5000000\r\n',
      '{"identifier":"',
    );
    expect([res.status, JSON.parse(res.text)]).toEqual([
      413,
      { error: 'payload_too_large', message: 'Payload too large' },
    ]);
  });

  it('answers a streamed (chunked) oversize body with the 413 envelope', async () => {
    const chunk = 'a'.repeat(64 * 1024);
    const payload = `${`${(chunk.length).toString(16)}\r\n${chunk}\r\n`.repeat(3)}0\r\n\r\n`;
    const res = await raw(
      'POST /login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n',
      payload,
    );
    expect([res.status, JSON.parse(res.text)]).toEqual([
      413,
      { error: 'payload_too_large', message: 'Payload too large' },
    ]);
  });

  it('answers invalid UTF-8 and NUL bytes in a JSON body with a 400 envelope', async () => {
    const body = Buffer.concat([
      Buffer.from('{"identifier":"a'),
      Buffer.from([0xff, 0xc0, 0x80, 0x00]),
      Buffer.from('@x.io"}'),
    ]);
    const res = await raw(
      `POST /login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n`,
      body,
    );
    expect(res.status).toBe(400);
    expect(brokenProperty(res, needles)).toBeNull();
  });

  it('answers two Authorization headers without a 5xx and without letting either through', async () => {
    const res = await raw(
      'GET /users/me HTTP/1.1\r\nhost: x\r\nauthorization: Bearer a.b.c\r\nauthorization: Bearer d.e.f\r\n',
    );
    expect([res.status, JSON.parse(res.text).error]).toEqual([401, 'unauthorized']);
  });

  // Node's own 431 for a header block over its limit, in the envelope.
  it('answers an oversize header block with the error envelope', async () => {
    const res = await raw(`GET /health/status HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(40_000)}\r\n`);
    expect(res.status).toBe(431);
    expect(brokenProperty(res, needles)).toBeNull();
  });
});
