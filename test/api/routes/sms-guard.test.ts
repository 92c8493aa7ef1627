/**
 * The SMS-pumping guard on the phone-OTP routes: a number
 * outside `sms_allowed_calling_codes`, or over an hourly budget
 * (`sms_hourly_budget`, per calling code and global, counted in the database
 * so every instance shares it), gets exactly a decoy's answer and nothing is
 * sent; the refusal is an auth event and shows in the admin metrics.
 */
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { authEvents, otpCodes } from '../../../src/db/schema.js';
import { signedIn } from '../../helpers/admin.js';
import { captureSender, settle } from '../../helpers/capture-sender.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, prepareClient, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery } from '../../helpers/service-token.js';
import { tempDbFile, type TempDb } from '../../helpers/temp-db.js';

// The per-flow limiters are off so only the guard decides; the guard must not follow that bypass.
const NO_LIMITS = { DISABLE_AUTH_RATE_LIMITS: 'true' };
const US = (n: number) => `+1415555${String(2600 + n)}`;
const UK = (n: number) => `+44207183${String(8700 + n)}`;

async function phoneLogin(t: TestApi, phone: string, external = true) {
  const login = await t.call('POST', '/login', { body: { identifier: phone } });
  expect(login.status).toBe(200);
  return t.call('POST', '/otp/generate-login-phone-otp', {
    token: login.body.token,
    ...(external ? { headers: await externalDelivery(t.clock.now()) } : {}),
  });
}

const eventsOf = (t: TestApi, type: string) => t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));

let dbs: TempDb[] = [];
afterEach(() => {
  for (const d of dbs) d.remove();
  dbs = [];
});

describe('SMS guard: calling-code allowlist', () => {
  it('answers a number outside the allowlist exactly like a decoy, stores and sends nothing, and records the refusal', async () => {
    const sender = captureSender();
    const t = await makeApi({ env: { ...NO_LIMITS, SMS_ALLOWED_CALLING_CODES: '+44' }, sender });
    const user = await createUser(t, { phone: US(1), phoneVerified: true });

    const refused = await phoneLogin(t, US(1));
    const decoy = await phoneLogin(t, US(99)); // no account has this number
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({ message: 'Success', token: expect.any(String), ttl: 300, delivery: null });
    expect(Object.keys(refused.body).sort()).toEqual(Object.keys(decoy.body).sort());
    expect(decoy.body.delivery).toBeNull();

    // Without external delivery the API would send itself: still nothing goes out.
    const own = await phoneLogin(t, US(1), false);
    expect(own.status).toBe(200);
    expect(Object.keys(own.body).sort()).toEqual(['message', 'token', 'ttl']);
    await settle();
    expect(sender.sent).toEqual([]);
    expect(await t.api.deps.db.select().from(otpCodes).where(eq(otpCodes.userId, user.id))).toEqual([]);
    expect(await eventsOf(t, 'otp_sent')).toEqual([]);
    const blocked = await eventsOf(t, 'sms_calling_code_blocked');
    expect(blocked).toHaveLength(2);
    expect(blocked[0]).toMatchObject({
      userId: user.id,
      metadata: { reason: 'calling_code_not_allowed', callingCode: '1' },
    });
    expect(JSON.stringify(blocked)).not.toContain(US(1).slice(1));

    // An allowed calling code sends as before.
    await createUser(t, { phone: UK(1), phoneVerified: true });
    const allowed = await phoneLogin(t, UK(1), false);
    expect(allowed.status).toBe(200);
    await settle();
    expect(sender.sent.map((m) => m.to)).toEqual([UK(1)]);
  });

  it('guards the registration phone route too, and an admin PATCH takes effect at once', async () => {
    const t = await makeApi({ env: NO_LIMITS, sender: null });
    const admin = await signedIn(t, ['admin']);
    const reg = await t.call('POST', '/registration/register', {
      body: { email: 'sms.reg@example.com', phone: US(2) },
    });
    const send = async () =>
      t.call('POST', '/otp/generate-phone-otp', {
        token: reg.body.token,
        headers: await externalDelivery(t.clock.now()),
      });
    expect((await send()).body.delivery).toMatchObject({ kind: 'otp_sms', to: US(2) });
    const patch = await t.call('PATCH', '/system-config/admin', {
      token: admin.token,
      body: { sms_allowed_calling_codes: ['44', '33'] },
    });
    expect(patch.status).toBe(200);
    const after = await send();
    expect(after.status).toBe(200);
    expect(after.body.delivery).toBeNull();
  });

  it('refuses malformed allowlists and budgets at PATCH (400, nothing changed) and at boot (naming the variable)', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin']);
    for (const body of [
      { sms_allowed_calling_codes: ['+44'] },
      { sms_allowed_calling_codes: ['*', '44'] },
      { sms_allowed_calling_codes: ['44', '44'] },
      { sms_allowed_calling_codes: ['0'] },
      { sms_allowed_calling_codes: '44' },
      { sms_hourly_budget: { perCallingCode: 0, global: 10 } },
      { sms_hourly_budget: { perCallingCode: 10 } },
      { sms_hourly_budget: { perCallingCode: 10, global: 10, extra: 1 } },
    ]) {
      const res = await t.call('PATCH', '/system-config/admin', { token: admin.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
    const cfg = await t.call('GET', '/system-config/admin', { token: admin.token });
    expect(cfg.body.sms_allowed_calling_codes).toEqual(['*']);
    expect(cfg.body.sms_hourly_budget).toEqual({ perCallingCode: 100, global: 1000 });

    await expect(makeApi({ env: { SMS_ALLOWED_CALLING_CODES: '44,abc' } })).rejects.toThrow(
      /SMS_ALLOWED_CALLING_CODES/,
    );
    await expect(makeApi({ env: { SMS_HOURLY_BUDGET: '{"global":0}' } })).rejects.toBeInstanceOf(ConfigError);
    const seeded = await makeApi({ env: { SMS_HOURLY_BUDGET: '{"global":5}' } });
    const reader = await signedIn(seeded, ['admin']);
    expect((await seeded.call('GET', '/system-config/admin', { token: reader.token })).body.sms_hourly_budget).toEqual({
      perCallingCode: 100,
      global: 5,
    });
  });
});

describe('SMS guard: hourly budgets shared across instances', () => {
  async function twoInstances(env: Record<string, string>) {
    const file = tempDbFile();
    dbs.push(file);
    const clock = Date.UTC(2026, 5, 1, 10, 0, 0);
    const a = await makeApi({
      env: { ...NO_LIMITS, ...env },
      client: await prepareClient(file.url),
      clockStartMs: clock,
    });
    const b = await makeApi({
      env: { ...NO_LIMITS, ...env },
      client: await prepareClient(file.url),
      clockStartMs: clock,
    });
    return { a, b };
  }

  it('spends one per-calling-code budget across two API instances on one database, then refuses like a decoy', async () => {
    const { a, b } = await twoInstances({ SMS_HOURLY_BUDGET: '{"perCallingCode":3,"global":100}' });
    for (let i = 1; i <= 4; i++) await createUser(a, { phone: US(10 + i), phoneVerified: true });
    await createUser(a, { phone: UK(10), phoneVerified: true });

    const answers = [
      await phoneLogin(a, US(11)),
      await phoneLogin(b, US(12)),
      await phoneLogin(a, US(13)),
      await phoneLogin(b, US(14)),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((r) => r.body.delivery?.kind ?? null)).toEqual(['otp_sms', 'otp_sms', 'otp_sms', null]);
    expect(Object.keys(answers[3]!.body).sort()).toEqual(Object.keys(answers[0]!.body).sort());
    // Another calling code has its own budget.
    expect((await phoneLogin(b, UK(10))).body.delivery).toMatchObject({ kind: 'otp_sms', to: UK(10) });

    const exceeded = await eventsOf(a, 'sms_budget_exceeded');
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]!.metadata).toMatchObject({ reason: 'calling_code_budget', callingCode: '1' });

    // The next hour has a fresh budget.
    b.clock.advance(3_600_000);
    expect((await phoneLogin(b, US(14))).body.delivery).toMatchObject({ kind: 'otp_sms', to: US(14) });
  });

  it('spends one global budget across calling codes and instances', async () => {
    const { a, b } = await twoInstances({ SMS_HOURLY_BUDGET: '{"perCallingCode":100,"global":2}' });
    await createUser(a, { phone: US(20), phoneVerified: true });
    await createUser(a, { phone: UK(20), phoneVerified: true });
    await createUser(a, { phone: UK(21), phoneVerified: true });
    expect((await phoneLogin(a, US(20))).body.delivery).not.toBeNull();
    expect((await phoneLogin(b, UK(20))).body.delivery).not.toBeNull();
    expect((await phoneLogin(a, UK(21))).body.delivery).toBeNull();
    const [event] = await eventsOf(b, 'sms_budget_exceeded');
    expect(event!.metadata).toMatchObject({ reason: 'global_budget', callingCode: '44' });
  });
});

describe('SMS guard: failure of the budget store', () => {
  it('refuses the send (fails closed) with a decoy answer when the counters cannot be written', async () => {
    const sender = captureSender();
    const t = await makeApi({ env: NO_LIMITS, sender });
    await createUser(t, { phone: US(40), phoneVerified: true });
    await t.client.execute('DROP TABLE rate_limit_counters');
    const res = await phoneLogin(t, US(40));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success', token: expect.any(String), ttl: 300, delivery: null });
    await settle();
    expect(sender.sent).toEqual([]);
    const [event] = await eventsOf(t, 'sms_budget_exceeded');
    expect(event!.metadata).toMatchObject({ reason: 'store_unavailable', callingCode: '1' });
  });
});

describe('SMS guard: admin metrics', () => {
  it('counts refusals on the dashboard and in the event summary', async () => {
    const t = await makeApi({
      env: { ...NO_LIMITS, SMS_ALLOWED_CALLING_CODES: '44', SMS_HOURLY_BUDGET: '{"perCallingCode":1,"global":100}' },
    });
    const admin = await signedIn(t, ['admin']);
    await createUser(t, { phone: US(30), phoneVerified: true });
    await createUser(t, { phone: UK(30), phoneVerified: true });
    await createUser(t, { phone: UK(31), phoneVerified: true });
    await phoneLogin(t, US(30)); // not allowed
    await phoneLogin(t, UK(30)); // sent
    await phoneLogin(t, UK(31)); // over budget
    const dash = await t.call('GET', '/internal/metrics/dashboard', { token: admin.token });
    expect(dash.status).toBe(200);
    expect(dash.body).toMatchObject({ smsRefused24h: 2, otpUsage24h: 1 });
    const summary = await t.call('GET', '/internal/auth-events/summary', { token: admin.token });
    expect(summary.body.summary).toEqual(
      expect.arrayContaining([
        { type: 'sms_budget_exceeded', count: 1 },
        { type: 'sms_calling_code_blocked', count: 1 },
      ]),
    );
    const grouped = await t.call('GET', '/internal/auth-events/grouped?groupBy=category', { token: admin.token });
    expect(grouped.body.summary).toEqual(expect.arrayContaining([{ key: 'otp', count: 3 }]));
  });
});
