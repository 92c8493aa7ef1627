/**
 * The demo's CSP allows the Turnstile widget (script and frame from
 * https://challenges.cloudflare.com) only while the API's `bot_protection`
 * names Turnstile; otherwise the pages load nothing from outside.
 */
import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../demo/app.js';
import { DEMO_CSP, TURNSTILE_ORIGIN } from '../../demo/security-headers.js';
import { makeApi, TEST_ISSUER, TEST_SERVICE_TOKEN } from '../helpers/make-app.js';

async function demoCspWith(env: Record<string, string>) {
  const t = await makeApi({ env });
  const { app } = createDemoApp({
    authServerUrl: TEST_ISSUER,
    serviceSecret: TEST_SERVICE_TOKEN,
    cookieSecret: 'demo-test-cookie-secret-0123456789abcdef',
    printMessages: false,
    production: false,
    fetch: (input, init) => Promise.resolve(t.api.request(input, init)),
    resolveClientIp: () => '198.51.100.9',
  });
  return (await app.request('/')).headers.get('content-security-policy');
}

describe('demo CSP and bot protection', () => {
  it('keeps the strict CSP, with no outside origin, while bot protection is off', async () => {
    const csp = await demoCspWith({});
    expect(csp).toBe(DEMO_CSP);
    expect(csp).not.toContain(TURNSTILE_ORIGIN);
  });

  it('allows only the Turnstile origin, for scripts and frames, when the API asks for Turnstile', async () => {
    const csp = await demoCspWith({
      BOT_PROTECTION: JSON.stringify({
        provider: 'turnstile',
        siteKey: '1x00000000000000000000AA',
        secretEnv: 'TURNSTILE_SECRET',
      }),
    });
    expect(csp).toContain(`script-src 'self' ${TURNSTILE_ORIGIN}`);
    expect(csp).toContain(`frame-src ${TURNSTILE_ORIGIN}`);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('does not open the CSP for another provider (the demo renders Turnstile only)', async () => {
    const csp = await demoCspWith({
      BOT_PROTECTION: JSON.stringify({ provider: 'hcaptcha', siteKey: 'k', secretEnv: 'HCAPTCHA_SECRET' }),
    });
    expect(csp).toBe(DEMO_CSP);
  });
});
