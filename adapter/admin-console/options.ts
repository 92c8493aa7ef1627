/** Options of `svcAdminConsole` (the adapter's options plus a few of its own). */
import type { SvcAdapterOptions } from '../core/options.js';

/**
 * The adapter's options plus the console's own: spread the object you give
 * `svcAdapter` (`{ ...adapterOptions, title: 'Ops' }`). The refresh dedup is
 * per process, so the console and the adapter never rotate one refresh token twice.
 */
export interface SvcAdminConsoleOptions extends SvcAdapterOptions {
  /** Shown in the sidebar and the page titles. Default `svc admin`. */
  title?: string;
  /**
   * Where a visitor without a usable session is sent, with `?next=<console path>`
   * appended (e.g. your sign-in page `/`). Default: none; such a visitor gets a
   * 401 page with no redirect.
   */
  signInUrl?: string;
  /** Rows per page on the users, organizations and events screens (1–100). Default 25. */
  pageSize?: number;
  /** The app the console is mounted in: the "Back to the app" link, and where "Sign out" lands. Default `/`. */
  appUrl?: string;
  /**
   * The adapter's logout route that "Sign out" calls with `DELETE` (same origin,
   * cookies), before going to `appUrl`. Default `/auth/logout` (`svcAdapter` at `/auth`).
   */
  signOutUrl?: string;
}

export interface ConsoleSettings {
  title: string;
  signInUrl: string | null;
  pageSize: number;
  appUrl: string;
  signOutUrl: string;
}

/**
 * A path on this origin: `/x`. Never `//host`, and no backslash, whitespace or
 * control character anywhere (browsers read `/\host` and `/<tab>/host` as `//host`).
 */
const isSameOriginPath = (v: unknown): v is string =>
  typeof v === 'string' && v.startsWith('/') && !v.startsWith('//') && !/[\\\s\u0000-\u001f\u007f]/.test(v);

function pathOption(name: 'appUrl' | 'signOutUrl', value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  if (!isSameOriginPath(value))
    throw new Error(`svcAdminConsole: ${name} must be a same-origin path such as "${fallback}"`);
  return value;
}

/** Applies the defaults once and refuses bad values at construction, naming the option. */
export function consoleSettings(opts: SvcAdminConsoleOptions): ConsoleSettings {
  const pageSize = opts.pageSize ?? 25;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100)
    throw new Error('svcAdminConsole: pageSize must be an integer from 1 to 100');
  if (
    opts.signInUrl !== undefined &&
    (typeof opts.signInUrl !== 'string' || !opts.signInUrl.startsWith('/') || opts.signInUrl.startsWith('//'))
  ) {
    throw new Error('svcAdminConsole: signInUrl must be a same-origin path such as "/login"');
  }
  return {
    title: opts.title ?? 'svc admin',
    signInUrl: opts.signInUrl ?? null,
    pageSize,
    appUrl: pathOption('appUrl', opts.appUrl, '/'),
    signOutUrl: pathOption('signOutUrl', opts.signOutUrl, '/auth/logout'),
  };
}
