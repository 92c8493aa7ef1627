/**
 * The device of a session as the devices page shows it: browser, OS (names
 * and major versions) and device type. The adapter parses them from the
 * stored User-Agent (adapter/core/device.ts); the client, the demo and the
 * admin console word them with `deviceLabel`.
 */

export type DeviceType = 'desktop' | 'mobile' | 'tablet' | 'tv' | 'bot';

/** Names and major versions; null where the User-Agent does not say. */
export interface DeviceInfo {
  browser: string | null;
  browserVersion: string | null;
  os: string | null;
  osVersion: string | null;
  type: DeviceType | null;
}

/** "Chrome 131 on macOS", "Safari 17 on iOS 17", "Unknown device". */
export function deviceLabel(device: DeviceInfo | null | undefined): string {
  const name = (n: string | null | undefined, v: string | null | undefined) => (n ? (v ? `${n} ${v}` : n) : null);
  const browser = name(device?.browser, device?.browserVersion);
  const os = name(device?.os, device?.osVersion);
  return browser && os ? `${browser} on ${os}` : (browser ?? os ?? 'Unknown device');
}
