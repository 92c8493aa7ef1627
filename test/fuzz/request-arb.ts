/** One generated request for a route pattern: params, query, credential kind, content type, body and extra headers. */
import fc from 'fast-check';
import {
  LazyBody,
  bodyArb,
  contentTypeArb,
  headersArb,
  paramArb,
  queryArb,
  type Body,
  type HeaderList,
} from './arbitraries.js';
import { paramCount } from './properties.js';

export type Credential = 'none' | 'garbage' | 'admin' | 'user' | 'eph-login' | 'eph-registration' | 'eph-mfa';

export interface FuzzCase {
  params: string[];
  query: string;
  credential: Credential;
  contentType: string | undefined;
  body: Body;
  headers: HeaderList;
}

export function caseArb(
  pattern: string,
  opts: { body?: fc.Arbitrary<Body>; maxHeaderValue?: number } = {},
): fc.Arbitrary<FuzzCase> {
  return fc.record({
    params: fc.array(paramArb, { minLength: paramCount(pattern), maxLength: paramCount(pattern) }),
    query: queryArb,
    credential: fc.constantFrom<Credential>(
      'none',
      'garbage',
      'admin',
      'admin',
      'user',
      'eph-login',
      'eph-registration',
      'eph-mfa',
    ),
    contentType: contentTypeArb,
    body: opts.body ?? bodyArb,
    headers: headersArb({ maxValueLength: opts.maxHeaderValue ?? 20_000 }),
  });
}

/** A printable summary for failure messages (bodies cut short). */
export function describeCase(method: string, path: string, c: FuzzCase): string {
  const body =
    c.body === undefined
      ? ''
      : c.body instanceof LazyBody
        ? `<${c.body.label}>`
        : typeof c.body === 'string'
          ? c.body.slice(0, 120)
          : `<${c.body.length} bytes: ${[...c.body.slice(0, 24)].map((b) => b.toString(16)).join(' ')}>`;
  return `${method} ${path.slice(0, 200)} cred=${c.credential} ct=${JSON.stringify(c.contentType)} headers=${JSON.stringify(c.headers.map(([k, v]) => [k, v.slice(0, 40)]))} body=${JSON.stringify(body)}`;
}

/**
 * Runs a property and throws one short error naming the case, seed and path
 * (fast-check's own report would print megabyte bodies). Replay a failure
 * with `FUZZ_SEED=<seed of the suite>`; the per-route seed is derived from it.
 */
export async function runCases(
  arb: fc.Arbitrary<FuzzCase>,
  opts: { seed: number; numRuns: number; label: (c: FuzzCase) => string },
  check: (c: FuzzCase) => Promise<string | null>,
): Promise<number> {
  let ran = 0;
  const details = await fc.check(
    fc.asyncProperty(arb, async (c) => {
      ran++;
      const broken = await check(c);
      if (broken) throw new Error(broken);
    }),
    { seed: opts.seed, numRuns: opts.numRuns, endOnFailure: true },
  );
  if (details.failed) {
    const c = details.counterexample?.[0];
    const why = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(
      `${why.slice(0, 600)}\n  case: ${c ? opts.label(c) : '?'}\n  seed ${details.seed}, path ${details.counterexamplePath}`,
    );
  }
  return ran;
}
