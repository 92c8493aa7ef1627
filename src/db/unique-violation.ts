/** Recognises a SQLite UNIQUE violation through drizzle's error wrapping. */
export function uniqueViolation(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const m = /UNIQUE constraint failed: ([\w.]+(?:, [\w.]+)*)/.exec(String((e as Error).message ?? ''));
    if (m) return m[1]!;
  }
  return null;
}
