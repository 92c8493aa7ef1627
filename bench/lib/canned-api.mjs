// The API's work made free, for the "who am I, API free" line of `npm run bench:peers`: a stand-in
// API (Node `node:http` or `Bun.serve`, the cheapest server of each runtime) that passes the first
// request of each method and path to the real API at `API_URL` and then answers every later one with
// that answer's status, headers and bytes, without reading the database or checking anything. An app
// pointed at it pays the adapter and the hop exactly as for real, and an API doing nothing: what
// "who am I" can at best reach through two processes, whatever the API does. Prints `listening on <url>`.
//   API_URL=http://127.0.0.1:8787 node bench/lib/canned-api.mjs      (or bun)
const upstream = process.env.API_URL;
if (!upstream) throw new Error('API_URL is required');
/** `${method} ${path}` → the first answer, replayed. */
const answers = new Map();
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

async function answerOf(method, path, headers) {
  const key = `${method} ${path}`;
  let a = answers.get(key);
  if (!a) {
    const res = await fetch(`${upstream}${path}`, { method, headers });
    const kept = [...res.headers].filter(([k]) => !HOP.has(k));
    a = { status: res.status, headers: kept, body: new Uint8Array(await res.arrayBuffer()) };
    if (res.ok) answers.set(key, a);
  }
  return a;
}

if (globalThis.Bun) {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (req) => {
      const path = req.url.slice(req.url.indexOf('/', 8));
      const a = answers.get(`${req.method} ${path}`);
      const send = (x) => new Response(x.body, { status: x.status, headers: x.headers });
      return a ? send(a) : answerOf(req.method, path, req.headers).then(send);
    },
  });
  console.log(`listening on http://127.0.0.1:${server.port}`);
} else {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    const a = answers.get(`${req.method} ${req.url}`);
    const send = (x) => {
      res.writeHead(x.status, [...x.headers.flat(), 'content-length', String(x.body.length)]);
      res.end(x.body);
    };
    if (a) return send(a);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP.has(k) && k !== 'host'));
    answerOf(req.method, req.url, headers).then(send, (e) => res.writeHead(502).end(String(e)));
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
}
