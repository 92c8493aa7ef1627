/**
 * Checks real responses against an OpenAPI document: the status must be one
 * the matched operation documents, and the JSON body must validate against
 * that response's schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses).
 * `observe()` wraps a test API's `request` so every response of a suite is
 * checked; the checker keeps which operations and statuses were seen.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { TestApi } from '../helpers/make-app.js';

type Json = Record<string, any>;

// ajv-formats is CommonJS: under ESM its default export arrives as `{ default }` in some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as typeof addFormatsModule;

export interface Observed {
  method: string;
  path: string;
  status: number;
  body: string;
  contentType: string | null;
  /** Adapter document: 0 = cookie transport, 1 = bearer; picks that branch of a two-form `anyOf`. */
  transport?: 0 | 1;
}

interface Route {
  method: string;
  template: string;
  re: RegExp;
  literals: number;
  responses: Json;
  /** The operation takes the adapter's transport header: a two-form `anyOf` is its cookie/bearer pair. */
  transported: boolean;
}

const COMPONENTS_ID = 'components.json';
const retarget = (schema: unknown) =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`));

export function createResponseChecker(doc: Json, opts: { basePath?: string } = {}) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: retarget(doc.components.schemas) });
  const routes: Route[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    const segments = template.split('/').filter(Boolean);
    const pattern = segments
      .map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    for (const [method, operation] of Object.entries<Json>(item)) {
      routes.push({
        method: method.toUpperCase(),
        template,
        re: new RegExp(`^/${pattern}/?$`),
        literals: segments.filter((s) => !s.startsWith('{')).length,
        responses: operation.responses,
        transported: (operation.parameters ?? []).some((p: Json) => p.name === 'x-svc-auth-transport'),
      });
    }
  }
  const compiled = new Map<string, ValidateFunction>();
  const validator = (key: string, schema: unknown) => {
    let v = compiled.get(key);
    if (!v) compiled.set(key, (v = ajv.compile(retarget(schema))));
    return v;
  };
  const resolve = (response: Json): Json =>
    response.$ref ? doc.components.responses[String(response.$ref).split('/').pop()!] : response;

  const seen = new Map<string, Set<number>>();
  const unmatched: string[] = [];
  const violations: string[] = [];

  function check(o: Observed): string | null {
    const path = opts.basePath && o.path.startsWith(opts.basePath) ? o.path.slice(opts.basePath.length) || '/' : o.path;
    const candidates = routes
      .filter((r) => r.method === o.method && r.re.test(path))
      .sort((a, b) => b.literals - a.literals);
    const route = candidates[0];
    if (!route) {
      unmatched.push(`${o.method} ${path} ${o.status}`);
      return null;
    }
    const key = `${route.method} ${route.template}`;
    const where = `${key} → ${o.status}`;
    // An exact status, else its OpenAPI range (`4XX`: the provider's HTML error page).
    const documented = route.responses[String(o.status)] ?? route.responses[`${String(o.status)[0]}XX`];
    if (!documented) return `${where}: status not documented (body ${o.body.slice(0, 200)})`;
    (seen.get(key) ?? seen.set(key, new Set()).get(key)!).add(o.status);
    const media = resolve(documented).content ?? {};
    // An HTML page (the provider's consent and error pages) is documented as a string: its media type is the check.
    if (media['text/html'] && o.contentType?.startsWith('text/html')) return null;
    const content = media['application/json'];
    if (!content) return o.body === '' ? null : `${where}: documented without a body, got ${o.body.slice(0, 200)}`;
    if (!o.contentType?.startsWith('application/json')) return `${where}: content-type ${o.contentType}`;
    let body: unknown;
    try {
      body = JSON.parse(o.body);
    } catch {
      return `${where}: body is not JSON`;
    }
    // Elsewhere (the provider's RFC endpoints) a two-form `anyOf` is the envelope or the RFC error: either may answer.
    const branch =
      o.transport !== undefined && route.transported && content.schema.anyOf?.length === 2 ? o.transport : undefined;
    const validate = validator(
      `${key} ${o.status} ${branch ?? ''}`,
      branch === undefined ? content.schema : content.schema.anyOf[branch],
    );
    if (validate(body)) return null;
    return `${where}: ${ajv.errorsText(validate.errors, { separator: '; ' })} in ${JSON.stringify(body).slice(0, 400)}`;
  }

  /** Wraps `t.api.request`: every response is checked (and recorded) before the test reads it. */
  function observe(t: TestApi): void {
    const original = t.api.request.bind(t.api);
    t.api.request = (async (input: string | Request | URL, init?: RequestInit, ...rest: unknown[]) => {
      const res = await (original as (...a: unknown[]) => Promise<Response>)(input, init, ...rest);
      const url = new URL(input instanceof Request ? input.url : String(input), 'http://localhost');
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      const body = await res.clone().text();
      const problem = check({
        method,
        path: url.pathname,
        status: res.status,
        body,
        contentType: res.headers.get('content-type'),
      });
      if (problem) violations.push(problem);
      return res;
    }) as typeof t.api.request;
  }

  /** Wraps an adapter driver: the transport header picks the cookie or bearer form of each answer. */
  function observeDriver(driver: { request(path: string, init: RequestInit): Promise<Response> }): void {
    const original = driver.request.bind(driver);
    driver.request = async (path, init) => {
      const res = await original(path, init);
      const transport =
        new Headers(init.headers).get('x-svc-auth-transport')?.split(',')[0]?.trim().toLowerCase() === 'bearer' ? 1 : 0;
      const body = await res.clone().text();
      const problem = check({
        method: (init.method ?? 'GET').toUpperCase(),
        path: new URL(path, 'http://localhost').pathname,
        status: res.status,
        body,
        contentType: res.headers.get('content-type'),
        transport,
      });
      if (problem) violations.push(`${transport ? 'bearer' : 'cookie'}: ${problem}`);
      return res;
    };
  }

  return { check, observe, observeDriver, seen, unmatched, violations };
}

export type ResponseChecker = ReturnType<typeof createResponseChecker>;
