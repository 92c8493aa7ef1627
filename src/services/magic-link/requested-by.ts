/**
 * What asked for a magic link: browser and OS parsed from the
 * User-Agent, a coarse place when the deployment knows it, and the time. It is
 * shown in the email and on the link's page so the owner can tell a request
 * they did not make; the raw User-Agent never leaves the API.
 */
import type { RequestedBy } from '../../../common/contract.js';
import type { RequestContext } from '../../deps.js';

export type { RequestedBy };

const UNKNOWN = 'Unknown';

/** The browser family; order matters: Edge and Opera say "Chrome", Chrome says "Safari". */
export function browserOf(ua: string): string {
  if (/\bEdg(e|A|iOS)?\//.test(ua)) return 'Edge';
  if (/\bOPR\/|\bOpera\b/.test(ua)) return 'Opera';
  if (/\bFirefox\/|\bFxiOS\//.test(ua)) return 'Firefox';
  if (/\bChrome\/|\bCriOS\/|\bChromium\//.test(ua)) return 'Chrome';
  if (/\bSafari\//.test(ua) && /\bVersion\//.test(ua)) return 'Safari';
  return UNKNOWN;
}

/** The OS family; iOS before macOS (iPhone UAs say "like Mac OS X"), Android before Linux. */
export function osOf(ua: string): string {
  if (/\b(iPhone|iPad|iPod)\b/.test(ua)) return 'iOS';
  if (/\bAndroid\b/.test(ua)) return 'Android';
  if (/\bWindows\b/.test(ua)) return 'Windows';
  if (/\bMac OS X\b|\bMacintosh\b/.test(ua)) return 'macOS';
  if (/\bLinux\b|\bX11\b|\bCrOS\b/.test(ua)) return 'Linux';
  return UNKNOWN;
}

export function requestedBy(client: Pick<RequestContext, 'userAgent' | 'place'>, nowMs: number): RequestedBy {
  const ua = client.userAgent ?? '';
  return { browser: browserOf(ua), os: osOf(ua), place: client.place ?? null, at: new Date(nowMs).toISOString() };
}

/** Rows from before `requested_by` existed. */
export const unknownRequester = (createdAt: Date): RequestedBy => ({
  browser: UNKNOWN,
  os: UNKNOWN,
  place: null,
  at: createdAt.toISOString(),
});

/**
 * A place label from a trusted source, or null: letters, digits, spaces and
 * `,.'()-` only, at most 64 characters. It lands in emails, so nothing else passes.
 */
export function placeLabel(value: string | null | undefined): string | null {
  const v = value?.normalize('NFC').replace(/\s+/g, ' ').trim();
  if (!v || v.length > 64 || !/^[\p{L}\p{M}\p{N} ,.'()-]+$/u.test(v)) return null;
  return v;
}

/** "Chrome on macOS, Lyon, FR, at 2026-11-27 10:44 UTC": one wording for the API's and the adapter's emails. */
export { describeRequester } from '../../../common/messaging.js';
