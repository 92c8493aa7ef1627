/**
 * The parity suite (contract §5.14): every scenario runs through the Hono
 * adapter (in memory) and the Express adapter (a real http.Server on an
 * ephemeral port), each against a fresh real in-process auth API, and the
 * normalised transcripts (status, adapter headers, parsed body, Set-Cookie
 * list with Expires masked, upstream calls) must be equal. Each scenario also
 * asserts its own outcomes, so two equally broken adapters cannot pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServers } from './harness.js';
import { Normaliser, runBoth } from './parity.js';
import { FLOW_SCENARIOS } from './scenarios-flows.js';
import { GUARD_SCENARIOS } from './scenarios-guards.js';
import { ID_TOKEN_SCENARIOS, idTokenProvider } from './scenarios-id-token.js';
import { MORE_SCENARIOS } from './scenarios-more.js';

beforeAll(idTokenProvider.start);
afterAll(closeServers);
afterAll(idTokenProvider.close);

describe('Express ≡ Hono (parity)', () => {
  it.each(
    [...FLOW_SCENARIOS, ...GUARD_SCENARIOS, ...MORE_SCENARIOS, ...ID_TOKEN_SCENARIOS].map((s) => [s.name, s] as const),
  )('%s', async (_name, scenario) => {
    const { hono, express } = await runBoth(scenario);
    expect(hono.entries.length).toBeGreaterThan(3);
    expect(express.entries).toEqual(hono.entries);
  });
});

describe('the parity comparison itself', () => {
  const uuid = () => crypto.randomUUID();
  const cookie = (value: string, expires: string, sameSite = 'Lax') =>
    `svc-refresh=${value}; Max-Age=60; Path=/; Expires=${expires}; HttpOnly; SameSite=${sameSite}`;
  const norm = (body: unknown, cookies: string[] = []) => {
    const n = new Normaliser();
    return { body: n.value(body), cookies: cookies.map((c) => n.cookie(c)) };
  };

  it('equates runs that differ only in random values and Expires', () => {
    const [a, b] = [uuid(), uuid()];
    expect(norm({ sub: a, sessionId: uuid(), again: a }, [cookie('', 'Thu, 01 Jan 1970 00:00:00 GMT')])).toEqual(
      norm({ sub: b, sessionId: uuid(), again: b }, [cookie('', 'Thu, 01 Jan 1970 00:00:00 GMT')]),
    );
    expect(norm({}, [cookie('x.y.z', 'Mon, 23 Nov 2026 11:00:00 GMT')])).toEqual(
      norm({}, [cookie('x.y.z', 'Mon, 23 Nov 2026 11:15:00 GMT')]),
    );
  });

  it('tells apart different reuse of a value, different words, different attributes and a cleared vs a set cookie', () => {
    const a = uuid();
    expect(norm({ sub: a, again: a })).not.toEqual(norm({ sub: uuid(), again: uuid() }));
    expect(norm({ error: 'invalid_refresh_token' })).not.toEqual(norm({ error: 'refresh_token_reused' }));
    expect(norm({}, [cookie('x.y.z', 'Mon, 23 Nov 2026 11:00:00 GMT')])).not.toEqual(
      norm({}, [cookie('x.y.z', 'Mon, 23 Nov 2026 11:00:00 GMT', 'None')]),
    );
    expect(norm({}, [cookie('', 'Thu, 01 Jan 1970 00:00:00 GMT')])).not.toEqual(
      norm({}, [cookie('x.y.z', 'Thu, 01 Jan 1970 00:00:00 GMT')]),
    );
  });
});
