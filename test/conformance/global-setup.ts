/**
 * Vitest global setup of the conformance suite: starts the OpenID provider
 * and the target named by CONFORMANCE_TARGET, hands the case files its base
 * URL (`inject('conformance')`), and stops both afterwards. When the runtime
 * cannot start, the one-line reason goes to CONFORMANCE_REASON_FILE (read by
 * scripts/conformance.mjs) and the run fails.
 */
import { writeFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { conformanceEnv } from './env.js';
import { startOidcWithControl } from './oidc-control.js';
import { startTarget, TARGETS, type TargetName } from './targets.js';

export interface ConformanceContext {
  target: TargetName;
  base: string;
  env: Record<string, string>;
  oidcControl: string;
  sqldUrl?: string;
  persistDir?: string;
  wranglerLogDir?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    conformance: ConformanceContext;
  }
}

function reasonLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  // The first line names the failure; the runtime's own output follows it.
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const cause = lines.slice(1).find((l) => /error|cannot|not found|failed|denied/i.test(l));
  return [lines[0], cause].filter(Boolean).join(' — ').slice(0, 300);
}

export default async function setup(project: TestProject) {
  const target = process.env['CONFORMANCE_TARGET'] as TargetName | undefined;
  if (!target || !TARGETS.includes(target)) throw new Error(`CONFORMANCE_TARGET must be one of ${TARGETS.join(', ')}`);
  const oidc = await startOidcWithControl();
  try {
    const running = await startTarget(target, (base, databaseUrl) => conformanceEnv(base, databaseUrl, oidc.issuer));
    project.provide('conformance', {
      target,
      base: running.base,
      env: running.env,
      oidcControl: oidc.controlUrl,
      ...(running.sqldUrl ? { sqldUrl: running.sqldUrl } : {}),
      ...(running.persistDir ? { persistDir: running.persistDir } : {}),
      ...(running.wranglerLogDir ? { wranglerLogDir: running.wranglerLogDir } : {}),
    });
    return async () => {
      await running.stop();
      await oidc.close();
    };
  } catch (err) {
    await oidc.close();
    const file = process.env['CONFORMANCE_REASON_FILE'];
    if (file) writeFileSync(file, `${target} cannot start: ${reasonLine(err)}\n`);
    throw err;
  }
}
