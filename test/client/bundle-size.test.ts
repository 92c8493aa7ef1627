/**
 * Size budget of the browser bundle of `svc-auth/client` (+ `/browser`
 * passkeys, without React), minified + gzip. Measured 9.0 KB (9 012 B) on 2026-11-25:
 * the client (every adapter route, bearer refresh, session state) is ~5 KB and
 * @simplewebauthn/browser ~3 KB. 10 189 B on 2026-11-27 after the client grew
 * (id-token sign-in, flow bindings, refresh idempotency), and 10 315 B once
 * `createSvcClient` and `createBearerAuth` were split into named functions
 * (their shared state became object properties, which the minifier cannot
 * shorten). The 11.25 KB limit (10,944 B measured with the recovery-code, contact-change,
 * webhook, devices and challenge methods) leaves a little headroom and still
 * fails loudly if a runtime import of zod, hono or the API (tens of KB) leaks in
 * through a non-type import.
 */
import { describe, expect, it } from 'vitest';
import { bundleClient } from '../../scripts/bundle-client.mjs';

export const CLIENT_GZIP_LIMIT_BYTES = 11.25 * 1024;

describe('client: browser bundle', () => {
  it(`stays under ${CLIENT_GZIP_LIMIT_BYTES} bytes gzip and pulls in no server code`, async () => {
    const { code, bytes, gzipBytes } = await bundleClient();
    console.log(`svc-auth/client browser bundle: ${bytes} B minified, ${gzipBytes} B gzip`);
    expect(gzipBytes).toBeLessThan(CLIENT_GZIP_LIMIT_BYTES);
    expect(code).not.toMatch(/from\s*["']node:|require\(/);
    expect(code).not.toContain('ZodError');
    expect(code).not.toContain('drizzle');
  });
});
