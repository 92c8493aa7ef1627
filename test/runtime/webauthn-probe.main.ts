/** `bun` / `deno run` entry of webauthn-probe.ts: prints its result as one JSON line. */
import { webauthnProbe } from './webauthn-probe.js';

console.log(JSON.stringify(await webauthnProbe()));
