/**
 * `safeParse` for every schema the API validates with. zod/mini loads no
 * locale (its issues all read "Invalid input"); zod classic registered its
 * English one on first use, and `details.issues[].message` (contract §0.4)
 * carries those English messages. This sets the same default, at the same
 * priority (a locale the host configured wins), before each parse: a call
 * cannot be tree-shaken away the way a bare side-effect import can.
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';

export function safeParse<S extends z.core.$ZodType>(
  schema: S,
  data: unknown,
): z.core.util.SafeParseResult<z.output<S>> {
  if (!z.config().localeError) z.config(en());
  return z.safeParse(schema, data);
}
