/**
 * When queued webhook deliveries are sent. Two paths, both off the request:
 *
 * - after a request (`createWebhookTrigger`, from `createApp`): when that
 *   request's events queued a delivery, and at most once per `sweepMs`
 *   otherwise (retries that came due). On Workers the work runs under
 *   `waitUntil`; elsewhere it simply runs on after the response.
 * - a background loop (`startWebhookSender`) that the Node, Bun and Deno entry
 *   files start (nothing starts at import time), for retries on an idle
 *   server; the Workers cron handler (`scheduled`) sweeps the same way.
 *
 * Claims are leases (dispatcher.ts), so these paths and other instances
 * never send one row twice at once.
 */
import type { Deps } from '../../deps.js';
import { errorSummary } from '../../log.js';
import { dispatchDue, type DispatchResult } from './dispatcher.js';

type SenderDeps = Pick<Deps, 'db' | 'clock' | 'env' | 'log' | 'events'>;

/** Returns a trigger that says whether to dispatch now: deliveries were queued, or a sweep is due. */
export function createWebhookTrigger(deps: SenderDeps, sweepMs = 60_000) {
  let queued = false;
  let lastSweepMs = -Infinity;
  deps.events.onDeliveriesQueued = () => {
    queued = true;
  };
  return (nowMs: number): Promise<DispatchResult> | null => {
    if (!queued && nowMs - lastSweepMs < sweepMs) return null;
    queued = false;
    lastSweepMs = nowMs;
    return dispatchDue(deps);
  };
}

export interface WebhookSender {
  /** Runs one sweep now (tests; the loop calls it on its own). */
  runOnce(): Promise<DispatchResult | null>;
  stop(): void;
}

/** A loop that sweeps due deliveries every `intervalMs`; one sweep at a time; the timer does not hold the process. */
export function startWebhookSender(deps: SenderDeps, intervalMs = 2_000): WebhookSender {
  let running: Promise<DispatchResult | null> | null = null;
  const runOnce = () => {
    running ??= dispatchDue(deps)
      .catch((err) => {
        deps.log.log('error', 'webhook sweep failed', { error: errorSummary(err) });
        return null;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void runOnce(), intervalMs);
  (timer as { unref?: () => void }).unref?.();
  void runOnce();
  return { runOnce, stop: () => clearInterval(timer) };
}
