/** A real `MessageSender` that records what it was asked to send (no mocks of our code). */
import type { MessageSender, OutboundMessage } from '../../src/services/delivery/index.js';

export function captureSender(opts: { fail?: boolean } = {}): MessageSender & { sent: OutboundMessage[] } {
  const sent: OutboundMessage[] = [];
  return {
    name: 'capture',
    sent,
    async send(message) {
      sent.push(message);
      if (opts.fail) throw new Error(`smtp refused ${message.to}`);
      return { accepted: true };
    },
  };
}

/** Lets background dispatches (not awaited by the response) settle. */
export const settle = () => new Promise((r) => setTimeout(r, 20));
