/**
 * Packaging rules of the Express twin: `express` is an optional peer (a Hono
 * user installing svc-auth gets no Express), and only `adapter/express`
 * imports it; `adapter/core` and `adapter/hono` stay runtime-neutral.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../runtime/processes.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

describe('svc-auth/express packaging', () => {
  it('declares express as an optional peer dependency only, and exports ./express from dist', () => {
    expect(pkg.peerDependencies.express).toMatch(/^\^5\./);
    expect(pkg.peerDependenciesMeta.express).toEqual({ optional: true });
    expect(pkg.dependencies).not.toHaveProperty('express');
    expect(pkg.exports['./express']).toEqual({
      types: './dist/adapter/express/index.d.ts',
      default: './dist/adapter/express/index.js',
    });
  });

  it('imports express (and node: modules) only from adapter/express', () => {
    const neutral = [...sources('adapter/core'), ...sources('adapter/hono')];
    expect(neutral.length).toBeGreaterThan(20);
    for (const file of neutral)
      expect(readFileSync(join(ROOT, file), 'utf8'), file).not.toMatch(/from '(express|node:[\w/]+)'/);
    expect(readFileSync(join(ROOT, 'adapter/express/request.ts'), 'utf8')).toMatch(/from 'express'/);
  });
});
