/**
 * Client addresses. `normalizeIp` parses an IPv4 or IPv6
 * literal strictly and writes it one way (IPv4 dotted; IPv4-mapped IPv6 as its
 * IPv4; other IPv6 in RFC 5952 form), so two spellings of one address are one
 * string. `rateLimitKey` is what the per-IP limiters count: IPv4 is the
 * address, IPv6 is its network prefix (`2001:db8:1:2::/64`), because one
 * subscriber gets a whole /64 (often a /56 or /48) and rotating addresses
 * inside it must not buy a fresh budget. Pure: it also runs on Workers.
 */

/** An address in one canonical spelling; `groups` holds the eight 16-bit groups of an IPv6 one. */
export type IpAddress = { version: 4; text: string } | { version: 6; text: string; groups: number[] };

export const DEFAULT_IPV6_PREFIX_BITS = 64;

const V4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;
/** RFC 6874 zone id characters (`fe80::1%eth0`): the zone names the receiver's interface, not the client. */
const ZONE = /%[0-9a-z._~-]{1,64}$/;

function v4Groups(text: string): [number, number] | null {
  if (!V4.test(text)) return null;
  const [a, b, c, d] = text.split('.').map(Number) as [number, number, number, number];
  return [(a << 8) | b, (c << 8) | d];
}

/** Parses one side of a `::` (or the whole address): hex groups, the last one may be an IPv4 tail. */
function sideGroups(side: string, allowV4Tail: boolean): number[] | null {
  if (side === '') return [];
  const parts = side.split(':');
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (allowV4Tail && i === parts.length - 1 && part.includes('.')) {
      const tail = v4Groups(part);
      if (!tail) return null;
      groups.push(...tail);
    } else if (HEX_GROUP.test(part)) {
      groups.push(parseInt(part, 16));
    } else {
      return null;
    }
  }
  return groups;
}

function parseV6Groups(value: string): number[] | null {
  if (value.length > 64) return null;
  const halves = value.split('::');
  if (halves.length > 2) return null;
  if (halves.length === 1) {
    const groups = sideGroups(value, true);
    return groups && groups.length === 8 ? groups : null;
  }
  const head = sideGroups(halves[0]!, false);
  const tail = sideGroups(halves[1]!, true);
  // `::` stands for at least one zero group (RFC 4291 §2.2).
  if (!head || !tail || head.length + tail.length > 7) return null;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** RFC 5952: lower-case hex, no leading zeros, the longest run (≥ 2, first on a tie) of zero groups as `::`. */
function formatV6(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

const isV4Mapped = (g: number[]) =>
  g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff;

/** Parses an IPv4 or IPv6 literal (brackets and a zone id allowed and dropped); anything else is null. */
export function parseIp(value: string | undefined | null): IpAddress | null {
  // The longest literal is `[` + 45 characters + a 64-character zone + `]`: refuse more before any regex runs.
  if (!value || value.length > 160) return null;
  let v = value.trim().toLowerCase();
  if (v.startsWith('[') && v.endsWith(']')) v = v.slice(1, -1);
  if (V4.test(v)) return { version: 4, text: v };
  if (!v.includes(':')) return null;
  v = v.replace(ZONE, '');
  const groups = parseV6Groups(v);
  if (!groups) return null;
  if (isV4Mapped(groups)) {
    const [hi, lo] = [groups[6]!, groups[7]!];
    return { version: 4, text: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}` };
  }
  return { version: 6, text: formatV6(groups), groups };
}

/** The canonical spelling of an address, or null when the value is not one. */
export function normalizeIp(value: string | undefined | null): string | null {
  return parseIp(value)?.text ?? null;
}

/**
 * The per-IP limiter key of an address: IPv4 as is, IPv6 masked to
 * `prefixBits` and written `<network>/<prefixBits>` (every address of one
 * prefix gives the same key). `prefixBits` 128 keys the whole address.
 */
export function rateLimitKey(address: IpAddress, prefixBits: number = DEFAULT_IPV6_PREFIX_BITS): string {
  if (address.version === 4) return address.text;
  if (!Number.isInteger(prefixBits) || prefixBits < 0 || prefixBits > 128)
    throw new RangeError('prefixBits must be an integer from 0 to 128');
  const masked = address.groups.map((g, i) => {
    const keep = Math.min(16, Math.max(0, prefixBits - i * 16));
    return keep === 0 ? 0 : g & ((0xffff << (16 - keep)) & 0xffff);
  });
  return `${formatV6(masked)}/${prefixBits}`;
}
