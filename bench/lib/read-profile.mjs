// Reads a V8 .cpuprofile for the profile scripts (top-frames, inclusive-frames, owners). svc compiled by
// bench/lib/node-build.ts runs from <tree>/node_modules/.cache/svc-bench-node/<path>.js; its frames get the
// URL they would have from the source tree (<tree>/<path>.js), so every script counts them as svc's code
// and not as a package under node_modules.
import { readFileSync } from 'node:fs';

const SVC_BUILD = /\/node_modules\/\.cache\/svc-bench-node\//;

export function readProfile(file) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  for (const n of prof.nodes) n.callFrame.url = n.callFrame.url.replace(SVC_BUILD, '/');
  return prof;
}
