/** Types of scripts/wrap-comments.mjs (Node-only tooling). */
/** `text` (the source of `file`, whose extension picks TS or JS parsing) with its comments rewrapped at `width`. */
export function wrapText(file: string, text: string, width: number): string;
