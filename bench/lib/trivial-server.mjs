// A trivial HTTP server for bench/lib/loadgen-check.ts and bench/lib/upstream-transports.ts
// (Node `node:http` or `Bun.serve`): any request → 200 {"ok":true}, padded to BODY_BYTES
// with a "pad" field when set. Prints `listening on <url>`.
//   node bench/lib/trivial-server.mjs      bun bench/lib/trivial-server.mjs
const pad = Math.max(0, Number(process.env.BODY_BYTES ?? 0) - 21);
const body = pad ? JSON.stringify({ ok: true, pad: 'x'.repeat(pad) }) : '{"ok":true}';
if (globalThis.Bun) {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () => new Response(body, { headers: { 'content-type': 'application/json' } }),
  });
  console.log(`listening on http://127.0.0.1:${server.port}`);
} else {
  const { createServer } = await import('node:http');
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body),
  );
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
}
