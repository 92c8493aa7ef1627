/**
 * Whether a URL's host names this machine or a private network (SSRF:
 * an admin-set endpoint must not make the API a client of internal services
 * or of a cloud metadata endpoint). Takes a WHATWG-normalised `URL.hostname`,
 * so `127.1`, `2130706433` and `0x7f000001` already read `127.0.0.1` and an
 * IPv6 literal is bracketed and compressed. A public name that resolves to a
 * private address is not caught here (no DNS on Workers): docs/security.md.
 */

const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa'];

/** [first octet, second-octet low, second-octet high] for each private or special IPv4 block. */
const V4_BLOCKS: readonly [number, number, number][] = [
  [0, 0, 255], // "this network"
  [10, 0, 255],
  [100, 64, 127], // carrier-grade NAT
  [127, 0, 255],
  [169, 254, 254], // link-local, cloud metadata
  [172, 16, 31],
  [192, 168, 168],
  [198, 18, 19], // benchmarking
];

function ipv4Internal(host: string): boolean | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const [a, b] = [Number(m[1]), Number(m[2])];
  if (a >= 224) return true; // multicast, reserved, broadcast
  return V4_BLOCKS.some(([first, low, high]) => a === first && b >= low && b <= high);
}

function ipv6Internal(literal: string): boolean {
  const host = literal.slice(1, -1).toLowerCase();
  if (host === '::' || host === '::1') return true;
  // IPv4-mapped (::ffff:7f00:1 once normalised): judge the IPv4 address.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16);
    const lo = parseInt(mapped[2]!, 16);
    return ipv4Internal(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`) === true;
  }
  const first = parseInt(host.split(':')[0] || '0', 16);
  return (
    (first & 0xfe00) === 0xfc00 /* fc00::/7 unique local */ ||
    (first & 0xffc0) === 0xfe80 /* fe80::/10 link-local */ ||
    (first & 0xff00) === 0xff00
  ); /* multicast */
}

export function isInternalHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[')) return ipv6Internal(host);
  const v4 = ipv4Internal(host);
  if (v4 !== null) return v4;
  return host === 'localhost' || INTERNAL_SUFFIXES.some((s) => host.endsWith(s));
}

/**
 * Whether a server's listen address (`HOST`) accepts loopback connections
 * only: `localhost`, 127.0.0.0/8 or `::1`. `0.0.0.0`, `::` and every other
 * address can be reached from other machines.
 *
 * @example
 * isLoopbackListenHost('127.0.0.1'); // true
 * isLoopbackListenHost('0.0.0.0');   // false
 */
export function isLoopbackListenHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
