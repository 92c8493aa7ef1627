/**
 * A local siteverify stand-in for the bot-protection tests: a small HTTP
 * server that answers like Cloudflare Turnstile, hCaptcha and reCAPTCHA do for
 * their documented test keys, plus two broken endpoints (`/hang`, `/500`).
 *
 * The test keys, from the providers' own pages:
 * - Turnstile, https://developers.cloudflare.com/turnstile/troubleshooting/testing/ :
 *   secret `1x0000000000000000000000000000000AA` always passes,
 *   `2x0000000000000000000000000000000AA` always fails,
 *   `3x0000000000000000000000000000000AA` answers "token already spent"
 *   (`timeout-or-duplicate`); the test site keys make the widget emit the dummy
 *   token `XXXX.DUMMY.TOKEN.XXXX`, which only a test secret accepts.
 * - hCaptcha, https://docs.hcaptcha.com/#integration-testing-test-keys : secret
 *   `0x0000000000000000000000000000000000000000` with site key
 *   `10000000-ffff-ffff-ffff-000000000001` and response
 *   `10000000-aaaa-bbbb-cccc-000000000001` passes.
 * - reCAPTCHA, https://developers.google.com/recaptcha/docs/faq (automated
 *   tests): secret `6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe` always passes (v2, no score).
 *
 * `/redirect` answers 302 to `/siteverify`; `/score/<n>` answers a passing reCAPTCHA v3 verdict with that score.
 * Every request is kept (`received`) so a test can check what was sent.
 */
import { createServer, type Server } from 'node:http';

export const TURNSTILE_PASS_SECRET = '1x0000000000000000000000000000000AA';
export const TURNSTILE_FAIL_SECRET = '2x0000000000000000000000000000000AA';
export const TURNSTILE_SPENT_SECRET = '3x0000000000000000000000000000000AA';
export const TURNSTILE_DUMMY_TOKEN = 'XXXX.DUMMY.TOKEN.XXXX';
export const TURNSTILE_TEST_SITE_KEY = '1x00000000000000000000AA';
export const HCAPTCHA_TEST_SECRET = '0x0000000000000000000000000000000000000000';
export const HCAPTCHA_TEST_SITE_KEY = '10000000-ffff-ffff-ffff-000000000001';
export const HCAPTCHA_TEST_RESPONSE = '10000000-aaaa-bbbb-cccc-000000000001';
export const RECAPTCHA_TEST_SECRET = '6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe';
export const RECAPTCHA_TEST_SITE_KEY = '6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI';

export interface SiteverifyRequest {
  path: string;
  contentType: string | undefined;
  form: Record<string, string>;
}

export interface SiteverifyStandIn {
  url: string;
  received: SiteverifyRequest[];
  close(): Promise<void>;
}

const TEST_SECRETS = new Set([TURNSTILE_PASS_SECRET, TURNSTILE_FAIL_SECRET, TURNSTILE_SPENT_SECRET]);

function verdict(path: string, form: Record<string, string>): Record<string, unknown> {
  const { secret = '', response = '' } = form;
  if (!secret) return { success: false, 'error-codes': ['missing-input-secret'] };
  if (!response) return { success: false, 'error-codes': ['missing-input-response'] };
  const score = /^\/score\/([\d.]+)$/.exec(path);
  if (score) return { success: true, score: Number(score[1]), action: 'login' };
  if (secret === TURNSTILE_PASS_SECRET) return { success: true, 'error-codes': [], hostname: 'example.com' };
  if (secret === TURNSTILE_FAIL_SECRET) return { success: false, 'error-codes': ['invalid-input-response'] };
  if (secret === TURNSTILE_SPENT_SECRET) return { success: false, 'error-codes': ['timeout-or-duplicate'] };
  if (secret === HCAPTCHA_TEST_SECRET)
    return response === HCAPTCHA_TEST_RESPONSE
      ? { success: true }
      : { success: false, 'error-codes': ['invalid-input-response'] };
  if (secret === RECAPTCHA_TEST_SECRET) return { success: true, hostname: 'testkey.google.com' };
  // A real secret: the dummy token is refused, as Turnstile documents.
  if (response === TURNSTILE_DUMMY_TOKEN && !TEST_SECRETS.has(secret))
    return { success: false, 'error-codes': ['invalid-input-response'] };
  return { success: false, 'error-codes': ['invalid-input-secret'] };
}

export async function startSiteverifyStandIn(): Promise<SiteverifyStandIn> {
  const received: SiteverifyRequest[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const form = Object.fromEntries(new URLSearchParams(raw));
      received.push({ path, contentType: req.headers['content-type'], form });
      if (path === '/hang') {
        hanging.add(res);
        return;
      }
      if (path === '/redirect') {
        // A redirect must not be followed: it would resend the secret somewhere unchecked.
        res.writeHead(302, { location: '/siteverify' }).end();
        return;
      }
      if (path === '/500') {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(verdict(path, form)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
