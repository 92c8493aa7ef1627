/**
 * SMS-pumping guard. Before the API hands a phone code to
 * be sent, the number's country calling code must be allowed
 * (`sms_allowed_calling_codes`) and two hourly budgets must have room
 * (`sms_hourly_budget`): one per calling code, one for all SMS. The counters
 * live in `rate_limit_counters`, so every instance on the database shares
 * them, and they count whatever `RATE_LIMIT_STORE` or the limiter bypass say.
 * A refusal sends nothing; the caller answers exactly as for a decoy.
 */
import type { Deps, RequestContext } from '../../deps.js';
import { clientFields } from '../events/auth-events.js';
import { createDatabaseStore } from '../limits/rate-limiter.js';
import { callingCodeOf } from '../contact/phone.js';

const HOUR_MS = 3_600_000;

export type SmsRefusal = 'calling_code_not_allowed' | 'calling_code_budget' | 'global_budget' | 'store_unavailable';

export type SmsAdmission = { ok: true } | { ok: false; reason: SmsRefusal; callingCode: string | null };

type GuardDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'events' | 'log'>;

export { callingCodeOf } from '../contact/phone.js';

async function decide(deps: GuardDeps, phoneE164: string): Promise<SmsAdmission> {
  const cfg = await deps.config.get();
  const callingCode = callingCodeOf(phoneE164);
  const allowed = cfg.sms_allowed_calling_codes;
  if (!callingCode || !(allowed.includes('*') || allowed.includes(callingCode))) {
    return { ok: false, reason: 'calling_code_not_allowed', callingCode };
  }
  const store = createDatabaseStore(deps.db);
  const now = deps.clock.now();
  try {
    // Both counters move on every admitted attempt, so neither budget can be drained through the other.
    const [perCode, global] = await Promise.all([
      store.hit(`sms:cc:${callingCode}`, HOUR_MS, now),
      store.hit('sms:global', HOUR_MS, now),
    ]);
    if (perCode.count > cfg.sms_hourly_budget.perCallingCode)
      return { ok: false, reason: 'calling_code_budget', callingCode };
    if (global.count > cfg.sms_hourly_budget.global) return { ok: false, reason: 'global_budget', callingCode };
  } catch (err) {
    // Fails closed like the per-flow limiters: an unmetered send is what the guard exists to stop.
    deps.log.log('error', 'SMS budget store unavailable; refusing the send', { error: (err as Error).message });
    return { ok: false, reason: 'store_unavailable', callingCode };
  }
  return { ok: true };
}

/**
 * Admits one SMS to `phoneE164` or refuses it; a refusal writes
 * `sms_budget_exceeded` (budgets) or `sms_calling_code_blocked` (allowlist)
 * with the calling code, never the number.
 */
export async function admitSms(
  deps: GuardDeps,
  phoneE164: string,
  audit: { userId: string; client: RequestContext; attemptId?: string },
): Promise<SmsAdmission> {
  const admission = await decide(deps, phoneE164);
  if (!admission.ok) {
    await deps.events.record({
      ...clientFields(audit.client),
      type: admission.reason === 'calling_code_not_allowed' ? 'sms_calling_code_blocked' : 'sms_budget_exceeded',
      userId: audit.userId,
      metadata: {
        reason: admission.reason,
        callingCode: admission.callingCode,
        ...(audit.attemptId ? { attemptId: audit.attemptId } : {}),
      },
    });
  }
  return admission;
}
