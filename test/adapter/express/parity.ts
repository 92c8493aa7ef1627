/**
 * The parity runner (contract §5.14): a scenario runs once through the Hono
 * adapter and once through the Express adapter, each against its own fresh real
 * in-process auth API started at the same manual-clock instant, and every
 * answer is recorded in a normalised transcript: status, the headers the
 * adapter writes, the parsed body and the `Set-Cookie` list (`Expires` masked,
 * signed cookie values decoded). Values that are random per run (ids, tokens,
 * challenges) are renamed in order of first appearance (`<#1>`, `<#2>`…), so
 * equal transcripts mean equal structure and equal reuse of every value.
 */
import type { AuthMessage } from '../../../common/messaging.js';
import type { SvcAdapterOptions } from '../../../adapter/core/options.js';
import {
  honoMount,
  makeHarness,
  recordingMessaging,
  upstreamPaths,
  type Harness,
  type Mount,
  type SendInit,
  type SendResult,
} from '../helpers.js';
import { expressMount } from './harness.js';

export interface Run {
  h: Harness;
  /** Messages the adapter delivered through the recording handlers. */
  messages: AuthMessage[];
  /** Sends a request and records the answer. */
  send(method: string, path: string, init?: SendInit): Promise<SendResult>;
  /** Sends requests in parallel; answers are recorded in request order. */
  sendAll(requests: [string, string, SendInit?][]): Promise<SendResult[]>;
  /** Records any other observation (upstream calls, counts). */
  note(label: string, value: unknown): void;
}

export interface Scenario {
  name: string;
  over?: Partial<SvcAdapterOptions>;
  apiEnv?: Record<string, string>;
  /** Manual-clock start of both runs (default: now). */
  clockStartMs?: number;
  run(r: Run): Promise<void>;
}

const JWT = /^[\w-]+\.([\w-]+)\.[\w-]*$/;
const RANDOM = /[A-Za-z0-9_-]{20,}/g;
const WORDS = /^[a-z_]+$/;

function decodeSegment(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

export class Normaliser {
  private readonly names = new Map<string, string>();

  private alias(value: string): string {
    let name = this.names.get(value);
    if (!name) this.names.set(value, (name = `<#${this.names.size + 1}>`));
    return name;
  }

  value(v: unknown): unknown {
    if (typeof v === 'string') return this.string(v);
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.field(k, x)]));
    return v;
  }

  /** The magic-link number and its shuffled choices are random per run: aliased, and the choices kept as a count. */
  private field(key: string, x: unknown): unknown {
    if (key === 'confirmationNumber' && typeof x === 'number') return this.alias(`number:${x}`);
    if (key === 'choices' && Array.isArray(x)) return `<${x.length} choices>`;
    return this.value(x);
  }

  /** A JWT becomes its decoded (normalised) payload; random-looking runs become aliases; words stay. */
  string(s: string): unknown {
    const jwt = JWT.exec(s);
    const header = jwt ? decodeSegment(s.split('.')[0]!) : undefined;
    if (jwt && header && typeof header === 'object' && 'alg' in header)
      return { jwt: this.value(header), claims: this.value(decodeSegment(jwt[1]!)) };
    return s.replace(RANDOM, (m) => (WORDS.test(m) ? m : this.alias(m)));
  }

  /** `name=value; attrs` with the value decoded and `Expires` masked (clears keep their epoch date). */
  cookie(setCookie: string): unknown {
    const [pair, ...attrs] = setCookie.split('; ');
    const eq = pair!.indexOf('=');
    const value = pair!.slice(eq + 1);
    return {
      name: pair!.slice(0, eq),
      value: value === '' ? '' : this.string(value),
      attrs: attrs.map((a) => (a.startsWith('Expires=') && !a.includes('1970') ? 'Expires=<masked>' : a)),
    };
  }
}

const HEADERS = ['cache-control', 'content-type', 'retry-after'];

export interface Transcript {
  entries: unknown[];
  results: SendResult[];
}

/** Runs `scenario` through one adapter; `clockStartMs` is shared by both runs of a comparison. */
export async function runScenario(scenario: Scenario, mount: Mount, clockStartMs: number): Promise<Transcript> {
  const { messages, messaging } = recordingMessaging();
  const h = await makeHarness({ messaging, ...scenario.over }, scenario.apiEnv ?? {}, { mount, clockStartMs });
  const n = new Normaliser();
  const transcript: Transcript = { entries: [], results: [] };
  const record = (method: string, path: string, res: SendResult) => {
    transcript.results.push(res);
    transcript.entries.push({
      request: `${method} ${n.string(path)}`,
      status: res.status,
      headers: Object.fromEntries(HEADERS.map((k) => [k, res.headers.get(k)])),
      body: n.value(res.body),
      setCookies: res.setCookies.map((c) => n.cookie(c)),
    });
  };
  const r: Run = {
    h,
    messages,
    async send(method, path, init) {
      const res = await h.send(method, path, init);
      record(method, path, res);
      return res;
    },
    async sendAll(requests) {
      const results = await Promise.all(requests.map(([m, p, i]) => h.send(m, p, i)));
      requests.forEach(([m, p], k) => record(m, p, results[k]!));
      return results;
    },
    note: (label, value) => transcript.entries.push({ note: label, value: n.value(value) }),
  };
  try {
    await scenario.run(r);
    r.note('upstream calls', upstreamPaths(h));
  } finally {
    await h.driver.close();
  }
  return transcript;
}

/** Both runs of a scenario, Hono first. */
export async function runBoth(scenario: Scenario): Promise<{ hono: Transcript; express: Transcript }> {
  const start = scenario.clockStartMs ?? Date.now();
  const hono = await runScenario(scenario, honoMount, start);
  const express = await runScenario(scenario, expressMount, start);
  return { hono, express };
}
