/**
 * The apps under test, built once on one auth API: the API itself, and for
 * Hono and Express the adapter (`/auth`), the TOTP bridge (`/auth/totp`), the
 * admin console (`/admin`) and the well-known files (`/`). The routes each app
 * serves are read from the app (Hono's `app.routes`, Express's router stack),
 * never from a hand list, so a new route shows up here by itself.
 */
import express, { type Router } from 'express';
import { Hono } from 'hono';
import {
  svcExpressAdapter,
  svcExpressAdminConsole,
  svcExpressTotpBridge,
  svcExpressWellKnown,
} from '../../adapter/express/index.js';
import { svcAdapter, svcAdminConsole, svcTotpBridge, svcWellKnown } from '../../adapter/hono/index.js';
import type { SvcAdapterOptions } from '../../adapter/core/options.js';
import { closeServers, listen } from '../adapter/express/harness.js';
import { makeHarness, type Harness } from '../adapter/helpers.js';

export type Framework = 'api' | 'hono' | 'express';
export type Part = 'api' | 'adapter' | 'totp bridge' | 'admin console' | 'well-known';

export interface ServedRoute {
  method: string;
  /** Path below the part's mount, as the app registered it. */
  path: string;
}

export interface MountedPart {
  framework: Framework;
  part: Part;
  mount: string;
  routes: ServedRoute[];
  request(path: string, init: RequestInit): Promise<Response>;
}

/**
 * Limiters, lockout, the bcrypt cost and the request deadline would only add noise and time: the gates run
 * before the first three, and a loaded machine must not turn a slow answer into a 503.
 */
export const MATRIX_ENV: Record<string, string> = {
  DISABLE_AUTH_RATE_LIMITS: 'true',
  LOCKOUT_POLICY: '{"enabled":false}',
  REFRESH_TOKEN_BCRYPT_COST: '4',
  RATE_LIMIT_STORE: 'memory',
  REQUEST_DEADLINE_MS: '0',
};

const unique = (routes: ServedRoute[]) => [...new Map(routes.map((r) => [`${r.method} ${r.path}`, r])).values()];

/**
 * Hono lists middleware (`use`), catch-alls (`/api/*`) and the adapters' 405 method fallbacks (`all` on a
 * table path, answering a wrong method) as `ALL`: none of them is a route. Every route has its method.
 */
export const honoRoutes = (app: Hono<any>): ServedRoute[] =>
  unique(app.routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method, path: r.path })));

interface ExpressLayer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: ExpressLayer[] };
  rawPath?: unknown;
}

/**
 * Walks an Express router's stack: route layers are routes; a mounted router is
 * walked with its path; other layers are middleware.
 */
export function expressRoutes(router: Router, prefix = ''): ServedRoute[] {
  const out: ServedRoute[] = [];
  for (const layer of (router as unknown as { stack: ExpressLayer[] }).stack) {
    if (layer.route) {
      // `_all` is a 405 method fallback (`router.all`), not a route.
      for (const [method, on] of Object.entries(layer.route.methods))
        if (on && method !== '_all') out.push({ method: method.toUpperCase(), path: prefix + layer.route.path });
    } else if (layer.handle?.stack && typeof layer.rawPath === 'string') {
      out.push(...expressRoutes(layer.handle as unknown as Router, prefix + layer.rawPath.replace(/\/$/, '')));
    }
  }
  return unique(out);
}

export interface Apps {
  h: Harness;
  parts: MountedPart[];
  close(): Promise<void>;
}

const HONO_MOUNTS: [Part, string, (o: SvcAdapterOptions) => Hono<any>][] = [
  ['adapter', '/auth', svcAdapter],
  ['totp bridge', '/auth/totp', svcTotpBridge],
  ['admin console', '/admin', svcAdminConsole],
  ['well-known', '', svcWellKnown],
];

const EXPRESS_MOUNTS: [Part, string, (o: SvcAdapterOptions) => Router][] = [
  ['adapter', '/auth', svcExpressAdapter],
  ['totp bridge', '/auth/totp', svcExpressTotpBridge],
  ['admin console', '/admin', svcExpressAdminConsole],
  ['well-known', '', svcExpressWellKnown],
];

export async function buildApps(): Promise<Apps> {
  const parts: MountedPart[] = [];
  const h = await makeHarness({}, MATRIX_ENV, {
    sender: null,
    mount: async (opts) => {
      const root = new Hono();
      for (const [part, mount, make] of HONO_MOUNTS) {
        const app = make(opts);
        root.route(mount || '/', app);
        parts.push({
          framework: 'hono',
          part,
          mount,
          routes: honoRoutes(app),
          request: (path, init) => Promise.resolve(root.request(`http://localhost:3000${path}`, init)),
        });
      }
      root.notFound((c) => c.json({ error: 'not_found' }, 404));
      return { request: async (path, init) => root.request(path, init), close: async () => {} };
    },
  });
  parts.unshift({
    framework: 'api',
    part: 'api',
    mount: '',
    routes: honoRoutes(h.t.api),
    request: async (path, init) => h.t.api.request(path, init),
  });
  const app = express();
  for (const [part, mount, make] of EXPRESS_MOUNTS) {
    const router = make(h.opts);
    app.use(mount || '/', router);
    parts.push({
      framework: 'express',
      part,
      mount,
      routes: expressRoutes(router),
      request: (path, init) => fetch(base + path, init),
    });
  }
  app.use((_req, res) => void res.status(404).json({ error: 'not_found' }));
  const { base } = await listen(app);
  return {
    h,
    parts,
    close: async () => {
      await closeServers();
      await h.t.api.close();
    },
  };
}
