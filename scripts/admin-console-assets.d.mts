/** Types of scripts/admin-console-assets.mjs (Node-only tooling). */
/** The text of adapter/admin-console/assets.generated.ts as the sources make it now. */
export function renderAssets(): string;
