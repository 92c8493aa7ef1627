/**
 * Delivery wiring: the sender chosen by `DELIVERY_MODE`, and `dispatchMessage`,
 * which sends one message and writes `notification_sent` / `notification_failed`.
 * Failures are audited and logged without the code, link or address; they
 * never change an HTTP response (contract §3.4).
 */
import type { DeliveryEnv } from '../../config/env.js';
import type { Deps } from '../../deps.js';
import { createConsoleSender } from './console-sender.js';
import { renderMessage } from './render.js';
import type { MessageSender, MessagePayload } from './types.js';
import { createWebhookSender } from './webhook-sender.js';

export type { DeliveryPayload, MessageSender, OutboundMessage, SendResult } from './types.js';

export function createSenderFromEnv(env: DeliveryEnv): MessageSender | null {
  switch (env.mode) {
    case 'console':
      return createConsoleSender();
    case 'webhook':
      return createWebhookSender({ url: env.webhookUrl!, secret: env.webhookSecret! });
    case 'none':
      return null;
  }
}

/** The sender lives in `deps.extensions.sender` (null: no transport configured). */
export const senderOf = (deps: Pick<Deps, 'extensions'>): MessageSender | null =>
  (deps.extensions['sender'] as MessageSender | null | undefined) ?? null;

export interface DispatchContext {
  userId: string;
  ipAddress: string | null;
  userAgent: string | null;
  attemptId?: string;
}

export async function dispatchMessage(
  deps: Pick<Deps, 'extensions' | 'config' | 'events' | 'log'>,
  payload: MessagePayload,
  ctx: DispatchContext,
): Promise<void> {
  const sender = senderOf(deps);
  const base = { userId: ctx.userId, ipAddress: ctx.ipAddress, userAgent: ctx.userAgent };
  const channel = payload.kind === 'otp_sms' || payload.kind === 'contact_change_sms' ? 'sms' : 'email';
  const metadata = { kind: payload.kind, channel, attemptId: ctx.attemptId };
  if (!sender) {
    deps.log.log(
      'warn',
      'no delivery transport configured (DELIVERY_MODE=none) and external delivery was not requested',
      { kind: payload.kind },
    );
    await deps.events.record({
      ...base,
      type: 'notification_failed',
      metadata: { ...metadata, reason: 'no_transport' },
    });
    return;
  }
  try {
    const { app_name } = await deps.config.get();
    const result = await sender.send(renderMessage(payload, app_name));
    if (!result.accepted) throw new Error('message not accepted by the transport');
    await deps.events.record({ ...base, type: 'notification_sent', metadata: { ...metadata, provider: sender.name } });
  } catch (err) {
    // The error text of a transport may echo the request: log only its class.
    deps.log.log('error', 'message delivery failed', {
      kind: payload.kind,
      provider: sender.name,
      error: (err as Error)?.name ?? 'Error',
    });
    await deps.events.record({
      ...base,
      type: 'notification_failed',
      metadata: { ...metadata, provider: sender.name, reason: 'send_failed' },
    });
  }
}
