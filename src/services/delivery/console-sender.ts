/**
 * Development delivery: prints the code or link to stdout, marked DEV ONLY.
 * It deliberately bypasses the redacted logger (printing the secret is its job)
 * and is refused in production at startup (`DELIVERY_MODE=console`, src/config/env.ts).
 */
import type { MessageSender } from './types.js';

export function createConsoleSender(write: (line: string) => void = (line) => console.log(line)): MessageSender {
  return {
    name: 'console',
    async send(message) {
      const secret =
        message.code !== undefined ? `code: ${message.code}` : `link: ${message.magicLinkUrl ?? message.invitationUrl}`;
      write(`[svc-auth] DEV ONLY delivery (never enable in production) ${message.kind} to ${message.to} ${secret}`);
      return { accepted: true };
    },
  };
}
