/**
 * Role satisfaction (contract §5.9). One function shared
 * by the auth API's role gate, organization scopes and the adapters' `requireRole`.
 */

/** Valid role or scope names: `admin`, `admin:read`, `org:*`. */
export const ROLE_NAME_PATTERN = /^[A-Za-z0-9-]+(:[A-Za-z0-9-]+)*(:\*)?$/;
export const ROLE_NAME_MAX_LENGTH = 80;

/**
 * Does one granted role satisfy one required role?
 *
 * @example
 * grants('admin', 'admin:write');      // true
 * grants('admin:write', 'admin:read'); // true
 * grants('admin:read', 'admin');       // false
 */
export function grants(granted: string, required: string): boolean {
  const g = granted.trim();
  const r = required.trim();
  if (!g || !r) return false;
  if (g === r) return true;
  if (g.endsWith(':*')) {
    const prefix = g.slice(0, -2);
    return r === prefix || r.startsWith(`${prefix}:`);
  }
  if (!r.includes(':')) return false;
  if (!g.includes(':')) return r.startsWith(`${g}:`);
  const gs = g.split(':');
  const rs = r.split(':');
  if (gs.length !== rs.length) return false;
  for (let i = 0; i < gs.length - 1; i++) if (gs[i] !== rs[i]) return false;
  return gs[gs.length - 1] === 'write' && rs[rs.length - 1] === 'read';
}

/**
 * Any-of check over both lists.
 *
 * @example
 * satisfiesAny(['admin:write'], ['admin:read']); // true
 */
export function satisfiesAny(granted: readonly unknown[] | unknown, required: readonly string[]): boolean {
  if (!Array.isArray(granted)) return false;
  return granted.some((g) => typeof g === 'string' && required.some((r) => grants(g, r)));
}
