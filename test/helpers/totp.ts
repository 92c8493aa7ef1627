/** TOTP helpers for tests: codes are computed by `otpauth` from the secret the API returned. */
import { Secret, TOTP, URI } from 'otpauth';
import { expect } from 'vitest';
import type { TestApi } from './make-app.js';

/** 10 s into a 30 s step, so ±1 step arithmetic in tests is unambiguous. */
export const STEP_ALIGNED_START_MS = Date.UTC(2026, 0, 1, 12, 0, 10);
export const STEP_MS = 30_000;

/** Test env for TOTP suites: limiters off unless a test is about them. */
export const totpEnv = { DISABLE_AUTH_RATE_LIMITS: 'true' };

export const codeAt = (secretBase32: string, timestamp: number): string =>
  TOTP.generate({ secret: Secret.fromBase32(secretBase32), algorithm: 'SHA1', digits: 6, period: 30, timestamp });

/** A 6-digit code that is not valid at `timestamp` within ±`spread` steps. */
export function wrongCodeAt(secretBase32: string, timestamp: number, spread = 1): string {
  const valid = new Set<string>();
  for (let d = -spread; d <= spread; d++) valid.add(codeAt(secretBase32, timestamp + d * STEP_MS));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!valid.has(candidate)) return candidate;
  }
}

/** The otpauth URL parsed into a generator, as an authenticator app would. */
export const generatorFromUrl = (url: string) => URI.parse(url) as TOTP;

/** Enrolls and enables TOTP for the holder of `accessToken`; returns the base32 secret. */
export async function enrollTotp(t: TestApi, accessToken: string): Promise<string> {
  const start = await t.call('POST', '/totp/enroll/start', { token: accessToken });
  expect(start.status).toBe(200);
  const secret: string = start.body.secret;
  const verify = await t.call('POST', '/totp/enroll/verify', {
    token: accessToken,
    body: { code: codeAt(secret, t.clock.now()) },
  });
  expect(verify.status).toBe(200);
  return secret;
}
