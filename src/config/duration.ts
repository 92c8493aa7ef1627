/** Config durations: `^\d+[smhd]$` (contract §6). */
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;

export const DURATION_PATTERN = /^\d+[smhd]$/;

/** `"15m"` → 900. Throws on anything that is not a duration string. */
export function durationToSeconds(value: string): number {
  if (!DURATION_PATTERN.test(value)) throw new TypeError(`invalid duration: expected <n>s|m|h|d`);
  const unit = value.slice(-1) as keyof typeof UNIT_SECONDS;
  return Number(value.slice(0, -1)) * UNIT_SECONDS[unit];
}
