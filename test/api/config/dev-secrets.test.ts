/**
 * No public development secret. Outside production an
 * API without `API_SERVICE_TOKEN` used to accept a constant from the source:
 * anyone could mint a service token with it, ask for external delivery and
 * read an admin's sign-in link from the answer. Now such an API generates a
 * random token per database (printed once), and only where nobody else can
 * reach it (a loopback listener) or when the operator opts in with
 * `GENERATE_DEV_SECRETS=true`; a Worker is never loopback.
 */
import type { Client } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { createAuthApi, type AuthApi } from '../../../src/index.js';
import { createLogger, type LogLevel } from '../../../src/log.js';
import { baseEnv, prepareClient } from '../../helpers/make-app.js';
import { serviceToken } from '../../helpers/service-token.js';

/** The constant every earlier install accepted. */
const OLD_CONSTANT = 'svc-dev-service-token-not-for-production';
const { API_SERVICE_TOKEN: _unset, ...devEnv }: Record<string, string> = { ...baseEnv, NODE_ENV: 'development' };

async function boot(client: Client, options: { env?: Record<string, string>; loopbackOnly?: boolean } = {}) {
  const lines: { level: LogLevel; line: string }[] = [];
  const api = await createAuthApi({
    env: options.env ?? devEnv,
    client,
    loopbackOnly: options.loopbackOnly ?? true,
    logger: createLogger((level, line) => lines.push({ level, line })),
  });
  return { api, lines };
}

/** Asks for a sign-up code with external delivery: only a trusted caller gets the code in the answer. */
async function externalCode(api: AuthApi, secret: string, email: string): Promise<unknown> {
  const res = await api.request('/registration/register', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-svc-service-token': await serviceToken(Date.now(), { secret }),
      'x-svc-auth-delivery-mode': 'external',
    },
    body: JSON.stringify({ email }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { delivery?: { code?: string } }).delivery?.code;
}

describe('development service token', () => {
  it('is random per database, shared by every process on it, and the old constant grants nothing', async () => {
    const client = await prepareClient();
    const first = await boot(client);
    const second = await boot(client);
    const token = first.api.deps.env.secrets.serviceToken;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(token).not.toBe(OLD_CONSTANT);
    expect(second.api.deps.env.secrets.serviceToken).toBe(token);
    const other = await boot(await prepareClient());
    expect(other.api.deps.env.secrets.serviceToken).not.toBe(token);

    // The attack of the finding: a service token minted with the public constant is not trusted.
    expect(await externalCode(first.api, OLD_CONSTANT, 'victim@example.com')).toBeUndefined();
    expect(await externalCode(first.api, token, 'owner@example.com')).toMatch(/^[A-Z0-9]{6}$/);
  });

  it('is printed once, by the process that generated it', async () => {
    const client = await prepareClient();
    const first = await boot(client);
    const token = first.api.deps.env.secrets.serviceToken;
    expect(first.lines.filter((l) => l.line.includes(token))).toHaveLength(1);
    const second = await boot(client);
    expect(second.lines.some((l) => l.line.includes(token))).toBe(false);
  });

  it('derives the other secrets from it unless they are set', async () => {
    const { api } = await boot(await prepareClient(), {
      env: { ...devEnv, REFRESH_TOKEN_LOOKUP_SECRET: 'r'.repeat(40) },
    });
    const { secrets } = api.deps.env;
    expect(secrets.refreshLookup).toBe('r'.repeat(40));
    expect([secrets.totpEncryption, secrets.oauthState, secrets.decoySubject]).toEqual([
      secrets.serviceToken,
      secrets.serviceToken,
      secrets.serviceToken,
    ]);
  });

  it('is refused where other machines may reach the API (a Worker, 0.0.0.0), before the database is touched', async () => {
    const err = await boot(await prepareClient(), { loopbackOnly: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe('API_SERVICE_TOKEN');
    expect((err as ConfigError).message).toMatch(/GENERATE_DEV_SECRETS=true/);
  });

  it('GENERATE_DEV_SECRETS=true opts a reachable development instance in; production refuses it', async () => {
    const { api } = await boot(await prepareClient(), {
      env: { ...devEnv, GENERATE_DEV_SECRETS: 'true' },
      loopbackOnly: false,
    });
    expect(api.deps.env.secrets.serviceToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const prod = await boot(await prepareClient(), {
      env: { ...devEnv, NODE_ENV: 'production', ISSUER: 'https://auth.example.com', GENERATE_DEV_SECRETS: 'true' },
    }).catch((e: unknown) => e);
    expect(prod).toBeInstanceOf(ConfigError);
    expect((prod as ConfigError).issues.map((i) => i.key)).toEqual(
      expect.arrayContaining(['API_SERVICE_TOKEN', 'GENERATE_DEV_SECRETS']),
    );
  });

  it('a configured API_SERVICE_TOKEN is used as is and nothing is generated', async () => {
    const client = await prepareClient();
    const { api, lines } = await boot(client, {
      env: { ...devEnv, API_SERVICE_TOKEN: baseEnv['API_SERVICE_TOKEN']! },
      loopbackOnly: false,
    });
    expect(api.deps.env.secrets.serviceToken).toBe(baseEnv['API_SERVICE_TOKEN']);
    expect(lines.some((l) => l.line.includes('generated'))).toBe(false);
    const rows = await client.execute('SELECT count(*) AS n FROM development_secrets');
    expect(rows.rows[0]!['n']).toBe(0);
  });
});
