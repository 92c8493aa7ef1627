/** Types of scripts/chromium.mjs (Node-only tooling). */
export interface ResolvedChromium {
  path: string;
  version: string;
  /** Where it came from: CHROMIUM_PATH, PATH, the npm dev dependency or apt-get. */
  source: string;
  /** Extra environment the binary needs (LD_LIBRARY_PATH for the npm build on a system missing a library). */
  env?: Record<string, string>;
}
export function resolveChromium(): ResolvedChromium;
