/**
 * The load generator's HTTP client: `node:http` with a keep-alive agent (much
 * lighter per request than `fetch`, so the generator takes less of the CPU the
 * servers under test share with it) and a tiny cookie jar.
 */
import { Agent, request } from 'node:http';

export interface HttpAnswer {
  status: number;
  setCookies: string[];
  text: string;
}

export function createHttpClient(maxSockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  return {
    call(
      url: string,
      init: { method?: string; headers?: Record<string, string>; json?: unknown } = {},
    ): Promise<HttpAnswer> {
      const body = init.json === undefined ? undefined : JSON.stringify(init.json);
      const headers = {
        ...init.headers,
        ...(body === undefined
          ? {}
          : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
      };
      return new Promise((resolve, reject) => {
        const req = request(url, { method: init.method ?? 'GET', headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const sc = res.headers['set-cookie'];
            resolve({
              status: res.statusCode ?? 0,
              setCookies: Array.isArray(sc) ? sc : sc ? [sc] : [],
              text: Buffer.concat(chunks).toString('utf8'),
            });
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

/** Cookies by name; `Max-Age=0` or an empty value removes one. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  update(setCookies: string[]): this {
    for (const line of setCookies) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (!value || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return this;
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  has(name: string): boolean {
    return this.cookies.has(name);
  }
}
