/** `GET /admin/auth-events` and `GET /admin/credential-count` (contract §3.15). */
import { count } from 'drizzle-orm';
import { Hono } from 'hono';
import * as z from 'zod/mini';
import { credentials } from '../db/schema.js';
import type { AppEnv } from '../deps.js';
import { normalizeIp } from '../http/ip-address.js';
import { pageQuery } from '../http/pagination.js';
import { authEventJson } from '../http/serialize.js';
import { parseQuery } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { requireRole } from '../middleware/require-role.js';
import { queryEvents } from '../repositories/auth-event-queries.js';
import { TYPE_SHORTHANDS } from '../services/events/categories.js';

const typeName = z.string().check(z.regex(/^[A-Za-z_]{1,64}$/, 'Invalid event type'));
const iso = z.pipe(
  z.iso.datetime({ offset: true }),
  z.transform((v) => Date.parse(v)),
);
const id = z.string().check(z.minLength(1), z.maxLength(200));
// IPv4 or IPv6 literal characters only: the value is compared exactly, never parsed further.
const ipAddress = z.string().check(z.regex(/^[0-9A-Fa-f:.]{2,45}$/, 'Invalid IP address'));

export const eventsQuery = z
  .object({
    ...pageQuery(10),
    userId: z.optional(id),
    actorUserId: z.optional(id),
    sessionId: z.optional(id),
    ip: z.optional(ipAddress),
    type: z.optional(z.union([typeName, z.array(typeName).check(z.maxLength(50))])),
    from: z.optional(iso),
    to: z.optional(iso),
  })
  .check(
    z.refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
      message: '`from` must not be after `to`',
      path: ['from'],
    }),
  );

/** Expands the category shorthands; a plain type name matches exactly. */
function expandTypes(raw: string | string[] | undefined): { types?: string[]; suspicious?: boolean } {
  if (raw === undefined) return {};
  const types = new Set<string>();
  let suspicious = false;
  for (const t of Array.isArray(raw) ? raw : [raw]) {
    const short = TYPE_SHORTHANDS[t];
    if (short === 'suffix:_suspicious') suspicious = true;
    else if (short) short.forEach((x) => types.add(x));
    else types.add(t);
  }
  return { types: [...types], suspicious };
}

export const adminEventRoutes = new Hono<AppEnv>()
  .get('/admin/auth-events', requireAccess, requireRole('admin:read'), async (c) => {
    const q = parseQuery(c, eventsQuery);
    // Events store one spelling per address (RFC 5952), so the filter matches any spelling of it.
    const { rows, total } = await queryEvents(
      c.get('deps').db,
      {
        userId: q.userId,
        actorUserId: q.actorUserId,
        sessionId: q.sessionId,
        ipAddress: q.ip && (normalizeIp(q.ip) ?? q.ip),
        ...expandTypes(q.type),
        fromMs: q.from,
        toMs: q.to,
      },
      { limit: q.limit, offset: q.offset },
    );
    return c.json({ events: rows.map(authEventJson), total });
  })
  .get('/admin/credential-count', requireAccess, requireRole('admin:read'), async (c) => {
    const [row] = await c.get('deps').db.select({ n: count() }).from(credentials);
    return c.json({ count: row?.n ?? 0 });
  });
