/**
 * Size budget of the API worker as Workers would deploy it
 * (`wrangler deploy --dry-run --minify`, gzip -9). Measured on 2026-11-25:
 * 375 KB gzip before, 307 KB after importing zod as a namespace
 * (`import * as z from 'zod'`): zod's `z` re-export object keeps every locale
 * (~300 KB minified) in the bundle because esbuild cannot tree-shake its
 * members, while the star import lets it drop what is unused. Measured on
 * 2026-11-26 (this test's zlib gzip -9): 322.5 KB gzip (1097 KB minified)
 * before, 312.1 KB with the runtime schemas on zod/mini (zod 104 → 65 KB
 * minified), 307.2 KB (1132 KB minified) once `GET /openapi.json` serves the
 * committed docs/openapi.json instead of building it with `z.toJSONSchema`
 * (zod 37 KB; the document adds 133 KB minified but only ~12 KB gzip, less
 * than the generator and the operation tables it replaces).
 *
 * Then, the same day: phone metadata without formatting rules, jose's
 * generateKeyPair imported statically (the dynamic import kept all of jose),
 * a WebCrypto WebAuthn verifier instead of @simplewebauthn/server (whose barrel
 * pulled @peculiar/x509, asn1js, tsyringe: ~81 KB gzip), otpauth/bare, and
 * one entry per storage: the D1 worker (`wrangler.toml`, `src/worker.ts`) no
 * longer carries libSQL's client, the sqld/Turso worker
 * (`wrangler.sqld.example.toml`, `src/worker-libsql.ts`) carries only its HTTP
 * client. Measured: D1 170,934 B gzip (633 KB minified), libSQL 185,500 B.
 *
 * Measured on 2026-11-27 (this test, wrangler 4.86): @simplewebauthn/server is
 * the WebAuthn verifier again (a maintained library instead
 * of our own protocol code, and certificate chains verified instead of
 * accepted). Before, with the hand-written verifier: D1 181,039 B gzip
 * (674,938 B minified), libSQL 196,255 B. After (verification and options by
 * the library): D1 271,179 B gzip (1,003,159 B minified), libSQL 287,012 B
 * (1,053,171 B): +90 KB gzip, of which @peculiar/x509, asn1js and the
 * @peculiar/asn1-* schemas, tsyringe and reflect-metadata (what x509 needs),
 * the library's bundled root certificates and its own code. All of it is
 * reachable from verifyRegistrationResponse (it imports every attestation
 * format), so esbuild keeps it. Aliasing reflect-metadata to its `lite` build
 * and tsyringe's tslib 1 to tslib 2's ESM saves only 1.6 KB and was not taken;
 * wrangler's `keep_names = false` saves ~15 KB but renames classes that set
 * `this.name = this.constructor.name` (jose's errors, whose names reach logs
 * and events). The D1 worker is above the 265 KB target (0.7 × a comparable
 * Better Auth worker).
 *
 * Measured on 2026-11-27 with event webhooks (docs/webhooks.md): D1 282,698 B
 * gzip (1,043,041 B minified), libSQL 297,033 B (1,093,048 B): +11.5 KB gzip,
 * of which the `standardwebhooks` signer with fast-sha256 and
 * @stablelib/base64 ~4.8 KB (the signature is the library's, not our own
 * HMAC code, by decision), the committed OpenAPI document's new operations
 * ~1.2 KB, and the outbox, sender and admin routes the rest.
 *
 * With the other features of the same day (recovery codes, changing email or
 * phone, bot protection, the devices page's place and sign-in method; bowser
 * stays in the adapter, +8.8 KB here otherwise): D1 291,129 B gzip
 * (1,082,732 B minified), libSQL 305,551 B (1,132,867 B): +20.0 KB gzip
 * for the day, about 18% of it the OpenAPI document's new operations and
 * schemas, which the Workers script serves at `/openapi.json`.
 *
 * Measured on 2026-11-28 with the OAuth 2.1 / OpenID Connect provider
 * (docs/oauth-provider.md: authorization, consent, the token endpoint with
 * refresh rotation, userinfo, revocation, introspection, metadata, client
 * management and dynamic registration): D1 309,143 B gzip (1,166,643 B
 * minified), libSQL 324,360 B (1,217,122 B): +18.0 KB gzip, of which the
 * committed OpenAPI document's new operations and schemas ~4.4 KB (gzip of the
 * document alone: 23,074 → 27,511 B) and the
 * provider's services, routes and token code the rest (jose, already in the
 * bundle, signs and verifies its tokens).
 *
 * Each limit is the measured size plus ~2% for growth: a regression of the
 * size of any of those (the WebSocket client, every zod locale: +68 KB) fails;
 * the import rule below keeps classic zod out.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, removeDir, tempDir } from './processes.js';

/** gzip -9 budget per shipped Workers config: the D1 entry and the sqld/Turso entry. */
export const WORKER_GZIP_LIMITS = [
  { config: 'wrangler.toml', script: 'worker.js', limitBytes: 315_500 },
  { config: 'wrangler.sqld.example.toml', script: 'worker-libsql.js', limitBytes: 331_000 },
] as const;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('API worker bundle', () => {
  const dir = tempDir('worker-bundle');
  afterAll(() => removeDir(dir));

  it.each(WORKER_GZIP_LIMITS)(
    "$config: under $limitBytes bytes gzip with wrangler's own build",
    async ({ config, script, limitBytes }) => {
      const out = join(dir, config);
      // A failed build rejects with wrangler's output in the error.
      await promisify(execFile)(
        process.execPath,
        [BIN.wrangler, 'deploy', '--dry-run', '--minify', '--outdir', out, '--config', join(ROOT, config)],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            WRANGLER_SEND_METRICS: 'false',
            CI: '1',
            NO_COLOR: '1',
            WRANGLER_LOG_PATH: join(dir, 'logs'),
          },
        },
      );
      const code = readFileSync(join(out, script));
      const gzipBytes = gzipSync(code, { level: 9 }).length;
      console.log(`API worker (${config}): ${code.length} B minified, ${gzipBytes} B gzip (limit ${limitBytes})`);
      expect(gzipBytes).toBeLessThan(limitBytes);
      expect(code.toString('utf8')).not.toMatch(/from\s*["']node:/);
    },
    120_000,
  );

  it('the D1 worker carries no libSQL network client, the libSQL worker no WebSocket client', () => {
    const d1 = readFileSync(join(dir, 'wrangler.toml', 'worker.js'), 'utf8');
    const libsql = readFileSync(join(dir, 'wrangler.sqld.example.toml', 'worker-libsql.js'), 'utf8');
    // Class names of @libsql/hrana-client's HTTP and WebSocket clients (kept by minification: esbuild keeps names).
    const has = (code: string, marker: string) => code.includes(marker);
    expect(['HttpServerError', 'WebSocketUnsupportedError'].filter((m) => has(d1, m))).toEqual([]);
    expect(has(libsql, 'HttpServerError')).toBe(true);
    expect(has(libsql, 'WebSocketUnsupportedError')).toBe(false);
  });

  it('neither worker carries the embedded driver (src/db/driver/embedded-*.ts, over the native libsql module)', () => {
    // A class name and two messages found only in those files (not in open.ts, which names `createEmbeddedClient`);
    // the query helpers beside them (fastGet, prepared) run on Workers and may be there.
    const markers = [
      'EmbeddedTransaction',
      'is not supported by the embedded client',
      'statement without columns has no rows',
    ];
    for (const [config, script] of [
      ['wrangler.toml', 'worker.js'],
      ['wrangler.sqld.example.toml', 'worker-libsql.js'],
    ] as const) {
      const code = readFileSync(join(dir, config, script), 'utf8');
      expect(
        markers.filter((m) => code.includes(m)),
        config,
      ).toEqual([]);
    }
  });

  it('never imports classic zod in the runtime code: zod/mini as a namespace, and one locale by name', () => {
    // `{ z }` or `z.locales.en` would keep every locale; classic `zod` ~40 KB minified more than zod/mini.
    const allowed = [/^import (type )?\* as z from 'zod\/mini';$/, /^import \{ [\w, ]+ \} from 'zod\/locales';$/];
    const offenders = ['src', 'common', 'adapter', 'client']
      .flatMap((d) => sourceFiles(join(ROOT, d)))
      .flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(/^(?:import|export)\b[^;]*?from\s*['"]zod(?:\/[^'"]*)?['"];?/gms)]
          .map((m) => m[0].replace(/\s+/g, ' '))
          .filter((statement) => !allowed.some((r) => r.test(statement)))
          .map((statement) => `${relative(ROOT, f)}: ${statement}`),
      );
    expect(offenders).toEqual([]);
  });
});
