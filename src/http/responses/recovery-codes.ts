/** Recovery codes (docs/recovery-codes.md). */
import * as z from 'zod/mini';

/** `POST /recovery-codes`: the only answer that carries the codes. */
export const RecoveryCodesGenerated = z.object({
  message: z.literal('Success'),
  codes: z.array(z.string()),
  remaining: z.number().check(z.int(), z.gte(0)),
});
