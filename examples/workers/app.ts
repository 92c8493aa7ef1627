/**
 * Your app on Cloudflare Workers with the svc adapter, reaching the auth API
 * worker through a service binding (`AUTH`): no public hop, no DNS. Deliveries
 * run after the answer through `executionCtx.waitUntil`.
 *
 *   npx wrangler dev -c examples/workers/app.wrangler.toml -c examples/workers/api.wrangler.toml
 *
 * This example prints sign-in codes with console.log — replace `deliver` with
 * your mail/SMS provider.
 */
import { Hono } from 'hono';
import type { AuthMessage } from '../../common/messaging.js';
import { requireAuth, svcAdapter, type SvcVariables } from '../../adapter/hono/index.js';

interface Env {
  /** Service binding to the auth API worker (see app.wrangler.toml). */
  AUTH: { fetch: (input: string, init?: RequestInit) => Promise<Response> };
  API_ISSUER: string;
  APP_ORIGIN: string;
  COOKIE_SECRET: string;
  API_SERVICE_TOKEN: string;
}

async function deliver(message: AuthMessage) {
  // DEV ONLY: a real app sends this through its mail or SMS provider.
  console.log(
    `[example app] ${message.kind} for ${message.to}: ${message.code ?? message.magicLinkUrl ?? message.invitationUrl}`,
  );
  return { accepted: true, provider: 'console', channel: message.channel };
}

function build(env: Env) {
  const viaBinding = (input: string, init?: RequestInit) => env.AUTH.fetch(input, init);
  const auth = {
    authServerUrl: env.API_ISSUER,
    audience: env.API_ISSUER,
    issuer: env.APP_ORIGIN,
    cookieSecret: env.COOKIE_SECRET,
    serviceSecret: env.API_SERVICE_TOKEN,
    fetch: viaBinding,
    messaging: {
      handlers: { otpEmail: deliver, otpSms: deliver, magicLinkEmail: deliver, organizationInvitationEmail: deliver },
    },
  };
  const app = new Hono<{ Variables: SvcVariables }>();
  app.route('/auth', svcAdapter(auth));
  app.get('/', (c) => c.text('svc example app: the adapter is mounted at /auth'));
  app.get(
    '/api/hello',
    requireAuth({
      cookieSecret: auth.cookieSecret,
      issuer: auth.issuer,
      authServerUrl: auth.authServerUrl,
      audience: auth.audience,
      fetch: viaBinding,
    }),
    (c) => c.json({ hello: c.get('user').email ?? c.get('user').id }),
  );
  return app;
}

let app: ReturnType<typeof build> | null = null;

export default {
  fetch(request: Request, env: Env, ctx: Parameters<ReturnType<typeof build>['fetch']>[2]) {
    app ??= build(env);
    return app.fetch(request, env, ctx);
  },
};
