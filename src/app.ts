/**
 * `createApp(deps)` assembles the auth API: the request pipeline of contract
 * §3.0 and every route group. It reads no env and does no I/O by itself.
 */
import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { TrieRouter } from 'hono/router/trie-router';
import { memoRouter } from './http/memo-router.js';
import type { AppEnv, Deps } from './deps.js';
import { isTransientDbError, TRANSIENT_RETRY_AFTER_SECONDS } from './db/transient.js';
import { ApiError, fail, INTERNAL_ERROR_BODY } from './errors.js';
import { runInBackground } from './http/background.js';
import { bodyParser } from './middleware/body.js';
import { clientContext, type ConnectionIp } from './middleware/client-context.js';
import { cors } from './middleware/cors.js';
import { requestDeadline } from './middleware/deadline.js';
import { globalRateLimit } from './middleware/rate-limit.js';
import { openApiRoutes } from './openapi/route.js';
import { routeGroups } from './routes/index.js';
import { createMaintenanceTrigger } from './services/maintenance.js';
import { createWebhookTrigger } from './services/webhooks/runner.js';
import { errorSummary } from './log.js';

export interface AppOptions {
  connectionIp?: ConnectionIp;
}

/**
 * Headers go in at construction: @hono/node-server 1.x rebuilds a response
 * from its construction-time init when a later middleware calls `c.header()`,
 * so a header set on `res.headers` afterwards (Retry-After on 423, Allow on
 * 405) was dropped on Node only.
 */
function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  return c.json(err.body(), err.status as 400, err.headers);
}

/** Compiles route patterns once so an unmatched request can tell 404 from 405. */
function methodIndex(app: Hono<AppEnv>) {
  let compiled: { re: RegExp; method: string }[] | null = null;
  return (path: string): string[] => {
    compiled ??= app.routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => ({
        method: r.method,
        re: new RegExp(
          `^${r.path
            .replace(/\/$/, '')
            .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
            .replace(/\/:[^/]+/g, '/[^/]+')
            .replace(/\*/g, '.*')}/?$`,
        ),
      }));
    return [...new Set(compiled.filter((r) => r.re.test(path)).map((r) => r.method))];
  };
}

export function createApp(deps: Deps, options: AppOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false, router: memoRouter(new TrieRouter()) });
  const maintenance = createMaintenanceTrigger(deps.db);
  const webhooks = createWebhookTrigger(deps);

  app.use('*', async (c, next) => {
    c.set('deps', deps);
    await next();
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
    if (c.res.headers.get('Content-Type') === 'application/json')
      c.res.headers.set('Content-Type', 'application/json; charset=utf-8');
    const work = maintenance(deps.clock.now());
    if (work)
      runInBackground(c, work, (err) => deps.log.log('error', 'maintenance failed', { error: errorSummary(err) }));
    const sends = webhooks(deps.clock.now());
    if (sends)
      runInBackground(c, sends, (err) => deps.log.log('error', 'webhook sends failed', { error: errorSummary(err) }));
  });
  app.use('*', requestDeadline(deps.env.requestDeadlineMs));
  app.use('*', cors);
  app.use('*', clientContext(deps, options.connectionIp ?? (() => undefined)));
  app.use('*', globalRateLimit);
  app.use('*', bodyParser);

  for (const group of routeGroups) app.route('/', group);
  if (deps.env.openapiEnabled) app.route('/', openApiRoutes);

  const allowedMethods = methodIndex(app);
  app.notFound(async (c) => {
    const methods = allowedMethods(c.req.path);
    if (methods.length) {
      return errorResponse(c, fail('method_not_allowed', undefined, undefined, { Allow: methods.join(', ') }));
    }
    const client = c.get('client');
    await deps.events.record({
      type: 'request_suspicious',
      ipAddress: client?.ip ?? null,
      userAgent: client?.userAgent ?? null,
      metadata: { reason: 'unknown_route', path: c.req.path.slice(0, 200) },
    });
    return errorResponse(c, fail('not_found'));
  });

  app.onError((err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err);
    if (err instanceof HTTPException && err.status < 500) {
      const code =
        err.status === 413
          ? 'payload_too_large'
          : err.status === 404
            ? 'not_found'
            : err.status === 401
              ? 'unauthorized'
              : 'invalid_request';
      return errorResponse(c, fail(code));
    }
    if (isTransientDbError(err)) {
      deps.log.log('warn', 'database busy or unreachable; answered 503', {
        method: c.req.method,
        path: c.req.path,
        error: err,
      });
      const retryAfterSeconds = TRANSIENT_RETRY_AFTER_SECONDS;
      return errorResponse(
        c,
        fail('service_unavailable', undefined, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) }),
      );
    }
    deps.log.log('error', 'unhandled error', { method: c.req.method, path: c.req.path, error: err });
    return c.json(INTERNAL_ERROR_BODY, 500);
  });

  return app;
}
