/** What a console screen receives and returns, and the API reader the screens share. */
import type { AdapterCore } from '../core/core.js';
import { isObject } from '../core/handlers/forward.js';
import type { ClientInfo } from '../core/upstream.js';
import type { Html } from './html.js';
import type { ConsoleSettings } from './options.js';
import type { ConsoleSession } from './session.js';

/** An API answer as a screen sees it: the JSON body, or the error code and message to show. */
export type ApiAnswer<T> = { ok: true; body: T } | { ok: false; status: number; error: string; message: string };

export interface PageContext {
  /** The console's mount path, e.g. `/admin`. */
  base: string;
  settings: ConsoleSettings;
  session: ConsoleSession;
  params: Record<string, string>;
  /** One query-string value of the page request (first value), trimmed; undefined when empty. */
  query(name: string): string | undefined;
  /** A GET on the auth API as the signed-in admin. */
  api<T = Record<string, unknown>>(path: string, query?: Record<string, unknown>): Promise<ApiAnswer<T>>;
}

export interface Page {
  title: string;
  body: Html;
  /** Buttons shown next to the title. */
  actions?: Html;
  /** Load uPlot on this page. */
  charts?: boolean;
  status?: number;
}

export type Screen = (ctx: PageContext) => Promise<Page>;

/** Builds the API reader of one page request. */
export function apiReader(core: AdapterCore, token: string, client: ClientInfo) {
  return async <T>(path: string, query?: Record<string, unknown>): Promise<ApiAnswer<T>> => {
    // A `.` or `..` id would be resolved away by the URL parser and reach another route (contract §5.2).
    if (path.split('/').some((segment) => segment === '.' || segment === '..'))
      return { ok: false, status: 400, error: 'invalid_request', message: 'Invalid path parameter' };
    const res = await core.call({ method: 'GET', path, query, authorization: `Bearer ${token}`, client });
    if (!res.ok)
      return { ok: false, status: 502, error: 'upstream_unavailable', message: 'The auth API did not answer.' };
    if (res.status >= 200 && res.status < 300 && isObject(res.body)) return { ok: true, body: res.body as T };
    const body = isObject(res.body) ? res.body : {};
    const error = typeof body['error'] === 'string' ? body['error'] : 'upstream_error';
    const message = typeof body['message'] === 'string' ? body['message'] : `The auth API answered ${res.status}.`;
    return { ok: false, status: res.status, error, message };
  };
}
