/**
 * `svc oauth-clients list|create|delete|rotate-secret` against a libSQL file:
 * the admin API's services and rules, the secret printed once and stored only
 * as its hash, events written as the CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthSecretMatches } from '../../src/crypto/oauth-server.js';
import { bootstrap, fileDb, query, svc, type TestDb } from './helpers.js';

interface ClientRow {
  id: string;
  name: string;
  type: string;
  secret_hash: string | null;
  registration: string;
}

describe('svc oauth-clients', () => {
  let db: TestDb;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await fileDb();
    env = { DATABASE_URL: db.url };
    expect((await svc(['migrate'], env)).code).toBe(0);
    await bootstrap(db);
  }, 30_000);
  afterAll(() => db.stop());

  const rows = () => query<ClientRow>(db, 'SELECT * FROM oauth_clients ORDER BY created_at');

  it('creates a confidential client, prints its secret once, stores only the hash, writes oauth_client_created', async () => {
    const run = await svc(
      [
        'oauth-clients',
        'create',
        '--name',
        'Notes',
        '--type',
        'confidential',
        '--redirect-uri',
        'https://notes.example/cb',
        '--redirect-uri',
        'https://notes.example/cb2',
        '--scope',
        'openid email',
        '--json',
      ],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      ok: true,
      client: {
        name: 'Notes',
        type: 'confidential',
        redirectUris: ['https://notes.example/cb', 'https://notes.example/cb2'],
        scopes: ['openid', 'email'],
        registration: 'admin',
      },
      clientSecret: expect.stringMatching(/^svc_cs_/),
    });
    const [row] = await rows();
    expect(row!.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(oauthSecretMatches('client-secret', row!.secret_hash!, run.json.clientSecret)).toBe(true);
    const events = await query<{ type: string; user_agent: string; metadata: string }>(
      db,
      "SELECT * FROM auth_events WHERE type LIKE 'oauth_client_%'",
    );
    expect(events.map((e) => e.type)).toEqual(['oauth_client_created']);
    expect(events[0]!.user_agent).toMatch(/^svc-cli\//);
    expect(JSON.stringify(events)).not.toContain(run.json.clientSecret);

    const text = await svc(['oauth-clients', 'list'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${row!.id}  Notes  confidential  https://notes.example/cb`);
    expect(text.stdout).not.toContain('svc_cs_');
  });

  it('rotate-secret prints a new secret; the old one no longer matches', async () => {
    const [before] = await rows();
    const run = await svc(['oauth-clients', 'rotate-secret', before!.id], env);
    expect(run.code).toBe(0);
    const secret = /client secret: (svc_cs_\S+)/.exec(run.stdout)?.[1];
    expect(secret).toBeDefined();
    const [after] = await rows();
    expect(after!.secret_hash).not.toBe(before!.secret_hash);
    expect(oauthSecretMatches('client-secret', after!.secret_hash!, secret!)).toBe(true);
  });

  it('refuses what the admin API refuses, with its code and the field, exit 1', async () => {
    const run = await svc(
      ['oauth-clients', 'create', '--name', 'Bad', '--type', 'public', '--redirect-uri', 'https://a.example/cb#frag'],
      env,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/invalid_request: .*redirectUris\.0: must not contain a fragment/);
    const usage = await svc(['oauth-clients', 'create', '--name', 'x', '--type', 'public'], env);
    expect(usage.code).toBe(2);
    const unknown = await svc(['oauth-clients', 'delete', 'svc_ci_nope'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/oauth_client_not_found/);
  });

  it('deletes a client', async () => {
    const [row] = await rows();
    const run = await svc(['oauth-clients', 'delete', row!.id, '--json'], env);
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ ok: true, clientId: row!.id });
    expect(await rows()).toEqual([]);
    expect((await svc(['oauth-clients', 'list', '--json'], env)).json).toEqual({ ok: true, clients: [], total: 0 });
  });
});
