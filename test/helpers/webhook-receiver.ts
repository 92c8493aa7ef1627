/** A local HTTP receiver for event-webhook tests: records every request; the test decides each answer. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  path: string;
}

export type Responder = (req: ReceivedWebhook, res: ServerResponse) => void | Promise<void>;

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  respond: Responder;
  /** Resolves once `n` requests have arrived (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

const ok: Responder = (_req, res) => {
  res.writeHead(204).end();
};

export async function startReceiver(respond: Responder = ok): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters = new Set<() => boolean>();
  const receiver: WebhookReceiver = {
    url: '',
    received,
    respond,
    waitFor(n, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver: ${received.length}/${n} requests`)), timeoutMs);
        const check = () => {
          if (received.length >= n) {
            clearTimeout(timer);
            resolve(received);
            return true;
          }
          return false;
        };
        if (!check()) waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
      );
      const hit = { headers, body, path: req.url ?? '/' };
      received.push(hit);
      for (const w of [...waiters]) if (w()) waiters.delete(w);
      void receiver.respond(hit, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
