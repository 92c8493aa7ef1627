/**
 * Bundles the browser client (`svc-auth/client` + `svc-auth/client/browser`,
 * without React) with esbuild: ESM, minified, for browsers. Used by the demo
 * (served as /assets/svc-client.js) and by the size test.
 *
 *   node scripts/bundle-client.mjs [outfile]   → writes the bundle, prints raw and gzip sizes
 */
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Returns `{ code, bytes, gzipBytes }`; writes `outfile` when given. */
export async function bundleClient({ outfile } = {}) {
  const result = await build({
    stdin: {
      contents: "export * from './client/index.ts';\nexport * from './client/browser.ts';\n",
      resolveDir: root,
      sourcefile: 'svc-client-entry.ts',
      loader: 'ts',
    },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['react', 'react-dom'],
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  if (outfile) {
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(path.dirname(outfile), { recursive: true });
    await writeFile(outfile, code);
  }
  return {
    code: new TextDecoder().decode(code),
    bytes: code.byteLength,
    gzipBytes: gzipSync(code, { level: 9 }).byteLength,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const out = process.argv[2];
  const { bytes, gzipBytes } = await bundleClient(out ? { outfile: path.resolve(out) } : {});
  console.log(
    `svc-auth/client browser bundle: ${bytes} bytes minified, ${gzipBytes} bytes gzip${out ? ` → ${out}` : ''}`,
  );
}
