/**
 * What a person needs to recognise a session on a devices page: browser, OS
 * and device type, parsed from the stored User-Agent with `bowser` (a
 * maintained parser; no patterns of our own). Parsed here, in the adapter, at
 * read time, and not in the API: bowser adds ~7.7 KB gzip, more than the API
 * worker's size budget has left (test/runtime/worker-bundle.test.ts), and
 * parsing on read means old rows and a newer bowser need no migration
 * (docs/devices.md).
 */
import Bowser from 'bowser';
import type { DeviceInfo, DeviceType } from '../../common/device.js';

export { deviceLabel, type DeviceInfo, type DeviceType } from '../../common/device.js';

const DEVICE_TYPES: ReadonlySet<string> = new Set(['desktop', 'mobile', 'tablet', 'tv', 'bot']);
/** The stored User-Agent is at most 512 characters; anything longer did not come from the API. */
const MAX_UA_LENGTH = 512;

const text = (v: string | undefined): string | null => (v?.trim() ? v.trim().slice(0, 64) : null);
const major = (v: string | undefined): string | null => text(v?.split('.')[0]);

/** Browser, OS and type of a User-Agent; null without one. Never throws. */
export function describeDevice(userAgent: unknown): DeviceInfo | null {
  const ua = typeof userAgent === 'string' ? userAgent.trim().slice(0, MAX_UA_LENGTH) : '';
  if (!ua) return null;
  let parsed: Bowser.Parser.ParsedResult;
  try {
    parsed = Bowser.parse(ua);
  } catch {
    return null;
  }
  const os = text(parsed.os.name);
  return {
    browser: text(parsed.browser.name),
    browserVersion: major(parsed.browser.version),
    os,
    // Windows says "NT 10.0" (bowser names it "10"); browsers freeze macOS at 10.15.7, so its number means nothing.
    osVersion: os === 'Windows' ? text(parsed.os.versionName) : os === 'macOS' ? null : major(parsed.os.version),
    type: DEVICE_TYPES.has(parsed.platform.type ?? '') ? (parsed.platform.type as DeviceType) : null,
  };
}

/** The adapter's `GET /auth/sessions` answer: each session gains `device` (a 2xx body without a list is left as is). */
export function withDevices(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const sessions = (body as { sessions?: unknown }).sessions;
  if (!Array.isArray(sessions)) return body;
  return {
    ...body,
    sessions: sessions.map((s) =>
      typeof s === 'object' && s !== null
        ? { ...s, device: describeDevice((s as { userAgent?: unknown }).userAgent) }
        : s,
    ),
  };
}
