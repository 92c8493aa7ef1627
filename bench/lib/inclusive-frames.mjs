// Prints the heaviest functions of a V8 .cpuprofile by *inclusive* time (self
// plus callees on the same synchronous stack; each sample counted once per
// function), filtered by an optional regexp on "function  file". Complements
// top-frames.mjs (self time):
//   node bench/lib/inclusive-frames.mjs <file> [top=40] [filter-regexp]
import { readProfile } from './read-profile.mjs';

const [file, topArg, filter] = process.argv.slice(2);
const top = Number(topArg ?? 40);
const re = filter ? new RegExp(filter) : null;
const prof = readProfile(file);
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) => {
  const f = n.callFrame;
  const where = f.url.includes('node_modules/')
    ? f.url.split('node_modules/').pop()
    : f.url.replace(/^.*\/(src|adapter|bench)\//, '$1/');
  return `${f.functionName || '(anonymous)'}  ${where || '(native)'}${f.url ? `:${f.lineNumber + 1}` : ''}`;
};
const perNode = new Map();
prof.samples.forEach((id, i) => perNode.set(id, (perNode.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
let busy = 0;
const incl = new Map();
for (const [id, us] of perNode) {
  const leaf = byId.get(id);
  if (['(idle)', '(program)', '(garbage collector)'].includes(leaf.callFrame.functionName)) continue;
  busy += us;
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const key = label(byId.get(cur));
    if (seen.has(key)) continue;
    seen.add(key);
    incl.set(key, (incl.get(key) ?? 0) + us);
  }
}
console.log(`busy (excluding idle, program, GC) ${(busy / 1e6).toFixed(2)} s; inclusive shares of it:`);
for (const [k, us] of [...incl]
  .filter(([k]) => !re || re.test(k))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
