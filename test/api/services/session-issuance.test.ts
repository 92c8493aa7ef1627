/**
 * Issuance reads the MFA state and the active organization in one statement
 * (one round trip on the sign-in path); these pin what it must read: the oldest membership's
 * organization, no organization without a membership, the MFA step only for
 * an *enabled* TOTP credential, and a passkey login that ignores it.
 */
import { describe, expect, it } from 'vitest';
import { randomId } from '../../../src/crypto/random.js';
import { organizationMemberships, organizations, totpCredentials } from '../../../src/db/schema.js';
import { issueSession, isMfaRequired } from '../../../src/services/session/issuance.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

const client = {
  ip: '203.0.113.7',
  ipKey: '203.0.113.7',
  userAgent: 'test',
  trusted: false,
  externalDelivery: false,
  startedAtMs: 0,
};

async function org(t: TestApi, userId: string, createdAtMs: number) {
  const id = randomId();
  const at = new Date(createdAtMs);
  await t.api.deps.db
    .insert(organizations)
    .values({ id, name: `Org ${id.slice(0, 6)}`, slug: `org-${id.slice(0, 8)}`, createdAt: at, updatedAt: at });
  await t.api.deps.db
    .insert(organizationMemberships)
    .values({ id: randomId(), organizationId: id, userId, createdAt: at, updatedAt: at });
  return id;
}

async function totp(t: TestApi, userId: string, enabled: boolean) {
  const now = new Date(t.clock.now());
  await t.api.deps.db.insert(totpCredentials).values({
    id: randomId(),
    userId,
    secretCiphertext: 'x',
    secretIv: 'x',
    issuer: 'svc',
    accountName: 'a',
    enabled,
    createdAt: now,
    updatedAt: now,
  });
}

describe('issueSession reads (one statement)', () => {
  it('activates the oldest membership, and none without one', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const none = await issueSession(t.api.deps, { user, method: 'email_otp', client });
    expect(!isMfaRequired(none) && none.organizationId).toBeNull();
    const now = t.clock.now();
    await org(t, user.id, now - 1000);
    const oldest = await org(t, user.id, now - 5000);
    await org(t, user.id, now - 3000);
    const other = await createUser(t);
    await org(t, other.id, now - 9000); // another user's older membership is not theirs
    const r = await issueSession(t.api.deps, { user, method: 'email_otp', client });
    expect(!isMfaRequired(r) && r.organizationId).toBe(oldest);
  });

  it('asks for the MFA step only with an enabled TOTP credential, and never after a passkey', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    await totp(t, user.id, false);
    expect(isMfaRequired(await issueSession(t.api.deps, { user, method: 'email_otp', client }))).toBe(false);
    const other = await createUser(t);
    await totp(t, other.id, true);
    expect(isMfaRequired(await issueSession(t.api.deps, { user: other, method: 'email_otp', client }))).toBe(true);
    expect(
      isMfaRequired(await issueSession(t.api.deps, { user: other, method: 'passkey', client, mfaSatisfied: true })),
    ).toBe(false);
    // Someone else's enabled credential does not change this user's answer.
    expect(isMfaRequired(await issueSession(t.api.deps, { user, method: 'email_otp', client }))).toBe(false);
  });
});
