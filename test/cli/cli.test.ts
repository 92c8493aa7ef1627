/**
 * The command line's surface: `npx svc` resolves the package bin, help lists
 * every command, usage errors are one line with exit 2, `--json` is one
 * document, colour appears only when allowed.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../src/version.js';
import { ROOT } from '../runtime/processes.js';
import { ANSI, SVC_BIN, svc } from './helpers.js';

const COMMANDS = ['keys generate', 'keys rotate', 'migrate', 'admin create', 'config get', 'config set', 'doctor'];

// Every case is its own process and touches no shared state: run them side by side.
describe.concurrent('svc command line', () => {
  it('runs through `npx svc` in a checkout and lists every command', async () => {
    const { stdout } = await promisify(execFile)('npx', ['svc', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    for (const c of COMMANDS) expect(stdout).toContain(`  ${c}  `.replace(/ {2}$/, ''));
    expect(stdout).toMatch(/Exit codes: 0 ok · 1 .* 2 usage error · 3 environment/);
  }, 60_000);

  it('prints the package version', async () => {
    const run = await svc(['--version']);
    expect(run).toMatchObject({ code: 0, stdout: `${API_VERSION}\n` });
  });

  it('prints per-command help with its options and exits 0', async () => {
    const run = await svc(['keys', 'generate', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: svc keys generate [--kid <kid>] [--out <file> [--force]]');
    expect(run.stdout).toContain('--force');
  });

  it('prints help and exits 2 when no command is given', async () => {
    const run = await svc([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('Commands:');
  });

  it.each([
    [['bogus'], /^svc: error: unknown command "bogus": run svc --help for the list\n$/],
    [['keys'], /^svc: error: svc keys needs one of: generate, rotate/],
    [['migrate', '--frob'], /^svc: error: Unknown option '--frob' \(usage: svc migrate \[--dry-run\]\)\n$/],
    [
      ['config', 'set', 'app_name'],
      /^svc: error: wrong number of arguments \(usage: svc config set <key> <value>\)\n$/,
    ],
    [['admin', 'create'], /^svc: error: --email <email> is required\n$/],
    [['admin', 'create', '--email'], /^svc: error: Option '--email <value>' argument missing/],
    [['keys', 'generate', '--kid', 'no-dashes'], /^svc: error: --kid must match/],
    [['doctor', '--env', '/nonexistent/.env'], /^svc: error: --env \/nonexistent\/.env: cannot read it \(ENOENT\)\n$/],
  ])('refuses %j with one line on stderr and exit 2', async (args, message) => {
    const run = await svc(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stdout).toBe('');
  });

  it('reports a usage error as one JSON document on stdout with --json', async () => {
    const run = await svc(['bogus', '--json']);
    expect(run.code).toBe(2);
    expect(run.json).toEqual({
      ok: false,
      error: 'usage_error',
      message: 'unknown command "bogus": run svc --help for the list',
    });
    expect(run.stderr).toBe('');
  });

  describe('colour', () => {
    const args = ['bogus'];
    it('is off when the output is not a terminal', async () => {
      expect((await svc(args)).stderr).not.toMatch(ANSI);
    });
    // util-linux `script` gives the child a real pseudo-terminal.
    it.skipIf(!existsSync('/usr/bin/script'))('is on for a terminal, and off there with NO_COLOR', async () => {
      const inTerminal = (env: Record<string, string>) =>
        promisify(execFile)(
          '/usr/bin/script',
          ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(SVC_BIN)} bogus`, '/dev/null'],
          {
            encoding: 'utf8',
            env: { PATH: process.env['PATH'], HOME: process.env['HOME'], TERM: 'xterm', ...env },
          },
        ).then(
          (r) => r.stdout,
          (e: { stdout: string }) => e.stdout,
        );
      expect(await inTerminal({})).toMatch(/svc: \u001b\[31merror\u001b\[39m: unknown command/);
      expect(await inTerminal({ NO_COLOR: '1' })).toMatch(/^svc: error: unknown command/);
    });
    it('is on when FORCE_COLOR asks for it', async () => {
      expect((await svc(args, { FORCE_COLOR: '1' })).stderr).toMatch(ANSI);
    });
    it('is off with NO_COLOR, even with FORCE_COLOR', async () => {
      expect((await svc(args, { FORCE_COLOR: '1', NO_COLOR: '1' })).stderr).not.toMatch(ANSI);
    });
    it('is off with --no-color and with --json', async () => {
      expect((await svc(['keys', 'rotate', '--no-color'], { FORCE_COLOR: '1' })).stdout).not.toMatch(ANSI);
      expect((await svc(['bogus', '--no-color'], { FORCE_COLOR: '1' })).stderr).not.toMatch(ANSI);
      expect((await svc(['keys', 'rotate'], { FORCE_COLOR: '1' })).stdout).toMatch(ANSI);
      expect((await svc(['keys', 'rotate', '--json'], { FORCE_COLOR: '1' })).stdout).not.toMatch(ANSI);
    });
  });
});
