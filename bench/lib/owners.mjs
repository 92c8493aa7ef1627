// Self time of a V8 .cpuprofile (Node `--cpu-prof`, Bun `--cpu-prof`) by who owns the code: svc's own
// source, Hono, the other libraries, SQLite (the libsql native binding), the socket writes (the kernel's
// loopback TCP work is charged to the writer), garbage collection, and the runtime's own HTTP server,
// client and natives. Module loading is left out, and with `lastMs` only the profile's final `lastMs`
// milliseconds count (the measured rounds of bench/profile-bun.ts, not the start-up and sign-ups):
//   node bench/lib/owners.mjs <file.cpuprofile> [lastMs]
import { readProfile } from './read-profile.mjs';

const [file, lastArg] = process.argv.slice(2);
const lastUs = lastArg ? Number(lastArg) * 1000 : Infinity;
const prof = readProfile(file);
const byId = new Map(prof.nodes.map((n) => [n.id, n]));

function owner(frame) {
  const { functionName: f, url } = frame;
  if (f === '(idle)') return null;
  if (/modules\/esm|modules\/cjs|modules\/package_json|cjs-module-lexer|bootstrap\/realm|\/tsx\//.test(url))
    return null;
  if (/^(compileSourceTextModule|ModuleWrap|wrapSafe|compileForInternalLoader)$/.test(f)) return null;
  if (f === '(garbage collector)') return 'garbage collection';
  if (/^(writev|writeLatin1String|writeUtf8String|writeBuffer|writeAsciiString)$/.test(f)) return 'socket writes';
  if (/libsql/.test(url) || /Statement::/.test(f)) return 'SQLite (libsql)';
  if (/node_modules\/(hono|@hono)\//.test(url)) return 'Hono';
  if (url.includes('node_modules/')) return 'other libraries (jose, drizzle, …)';
  if (url && !url.startsWith('node:') && /\/(src|adapter|common|bench)\//.test(url)) return 'svc code';
  return 'runtime (HTTP, fetch, natives)';
}

// Sample times: the profile's timeDeltas summed; keep those within the last `lastUs` of the profile.
const times = [];
let t = 0;
for (const d of prof.timeDeltas) times.push((t += d));
const end = t;
const totals = new Map();
let all = 0;
prof.samples.forEach((id, i) => {
  if (end - times[i] > lastUs) return;
  const o = owner(byId.get(id).callFrame);
  if (!o) return;
  const us = prof.timeDeltas[i] ?? 0;
  totals.set(o, (totals.get(o) ?? 0) + us);
  all += us;
});
console.log(`owners of the busy time${lastArg ? ` in the last ${lastArg} ms` : ''} (module loading left out):`);
for (const [o, us] of [...totals].sort((a, b) => b[1] - a[1]))
  console.log(`  ${((100 * us) / all).toFixed(1).padStart(5)}%  ${o}`);
