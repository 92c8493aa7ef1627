// Prints the heaviest functions of a V8 .cpuprofile by self time (and the
// share of samples spent in each package), for the profile notes in docs/performance.md.
import { readProfile } from './read-profile.mjs';

const file = process.argv[2];
const top = Number(process.argv[3] ?? 20);
const prof = readProfile(file);
const self = new Map();
const byNode = new Map(prof.nodes.map((n) => [n.id, n]));
const dt = prof.timeDeltas;
const counts = new Map();
prof.samples.forEach((id, i) => counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)));
let total = 0;
const pkg = new Map();
for (const [id, us] of counts) {
  const n = byNode.get(id);
  const f = n.callFrame;
  total += us;
  if (f.functionName === '(idle)') continue;
  const where = f.url.includes('node_modules/')
    ? f.url
        .split('node_modules/')
        .pop()
        .split('/')
        .slice(0, f.url.includes('node_modules/@') ? 2 : 1)
        .join('/')
    : f.url
      ? f.url.replace(/^.*\/wt-[^/]+\//, '')
      : '(native)';
  const key = `${f.functionName || '(anonymous)'}  ${where}${f.url && !f.url.includes('node_modules/') ? `:${f.lineNumber + 1}` : ''}`;
  self.set(key, (self.get(key) ?? 0) + us);
  const p = f.url.includes('node_modules/')
    ? where
    : f.url.startsWith('node:')
      ? 'node internals'
      : f.url
        ? 'svc source'
        : f.functionName;
  pkg.set(p, (pkg.get(p) ?? 0) + us);
}
const idle = [...counts]
  .filter(([id]) => byNode.get(id).callFrame.functionName === '(idle)')
  .reduce((a, [, us]) => a + us, 0);
const busy = total - idle;
console.log(
  `total ${(total / 1e6).toFixed(2)} s, idle ${((idle / total) * 100).toFixed(1)}%; shares below are of busy time`,
);
console.log('top functions by self time:');
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
console.log('by package:');
for (const [k, us] of [...pkg].sort((a, b) => b[1] - a[1]).slice(0, 12))
  console.log(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
