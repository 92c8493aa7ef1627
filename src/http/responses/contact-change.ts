/** Response bodies of the contact-change routes (docs/contact-change.md). */
import * as z from 'zod/mini';

/** External delivery only (service token + delivery header): the message instead of a send. */
const ContactChangeDelivery = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('contact_change_email'), to: z.string(), code: z.string() }),
  z.object({ kind: z.literal('contact_change_sms'), to: z.string(), code: z.string() }),
  z.object({
    kind: z.literal('contact_change_notice_email'),
    to: z.string(),
    channel: z.enum(['email', 'phone']),
    changedTo: z.string(),
    reportUrl: z.string(),
  }),
]);
const delivery = { delivery: z.optional(z.nullable(ContactChangeDelivery)) };

export const ContactChangeRequested = z.object({
  message: z.literal('Success'),
  expiresInSeconds: z.number().check(z.int()),
  ...delivery,
});

export const ContactChanged = z.object({
  message: z.literal('Success'),
  channel: z.enum(['email', 'phone']),
  value: z.string(),
  revokedSessions: z.number().check(z.int()),
  ...delivery,
});
