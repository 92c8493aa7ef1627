/**
 * RS256 signing keys (contract §1.6, §1.7). Development: one `dev-main` key
 * generated once and persisted in `signing_keys` so every process shares it.
 * Production: the active kid, its PKCS#8 private key and the published public
 * keys come from env, and must agree or startup fails.
 */
import { exportJWK, exportPKCS8, exportSPKI, generateKeyPair, importPKCS8, importSPKI, type JWK } from 'jose';
import { eq } from 'drizzle-orm';
import { ConfigError } from '../config/config-error.js';
import type { ProductionKeysEnv } from '../config/env.js';
import type { Db } from '../db/client.js';
import { signingKeys } from '../db/schema.js';

export const DEV_KID = 'dev-main';

export interface KeyStore {
  activeKid: string;
  privateKey: CryptoKey;
  /** kid → public key used for verification. */
  publicKeys: ReadonlyMap<string, CryptoKey>;
  jwks: { keys: JWK[] };
}

const ALG = 'RS256';

async function buildStore(
  activeKid: string,
  privateKey: CryptoKey,
  publics: { kid: string; key: CryptoKey }[],
): Promise<KeyStore> {
  const keys: JWK[] = [];
  const map = new Map<string, CryptoKey>();
  for (const { kid, key } of publics) {
    const jwk = await exportJWK(key);
    keys.push({ kty: 'RSA', kid, use: 'sig', alg: ALG, n: jwk.n, e: jwk.e });
    map.set(kid, key);
  }
  return { activeKid, privateKey, publicKeys: map, jwks: { keys } };
}

/** Generates a fresh RSA-2048 pair as PEM strings. */
export async function generateRsaPem(): Promise<{ privatePem: string; publicPem: string }> {
  const { privateKey, publicKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
  return { privatePem: await exportPKCS8(privateKey), publicPem: await exportSPKI(publicKey) };
}

/** Loads the shared development key, creating it on first use. */
export async function loadDevKeys(db: Db, nowMs: number): Promise<KeyStore> {
  let [row] = await db.select().from(signingKeys).where(eq(signingKeys.kid, DEV_KID));
  if (!row) {
    const { privatePem, publicPem } = await generateRsaPem();
    await db
      .insert(signingKeys)
      .values({ kid: DEV_KID, privatePem, publicPem, createdAt: new Date(nowMs) })
      .onConflictDoNothing();
    [row] = await db.select().from(signingKeys).where(eq(signingKeys.kid, DEV_KID));
    if (!row) throw new Error('dev signing key could not be stored');
  }
  const privateKey = await importPKCS8(row.privatePem, ALG);
  const publicKey = await importSPKI(row.publicPem, ALG, { extractable: true });
  return buildStore(DEV_KID, privateKey, [{ kid: DEV_KID, key: publicKey }]);
}

/** Loads and cross-checks the production keys from env. */
export async function loadProductionKeys(env: ProductionKeysEnv): Promise<KeyStore> {
  const privateName = `SVC_JWKS_KEY_${env.activeKid}_PRIVATE`;
  let published: { kid: string; pem: string }[];
  try {
    const parsed = JSON.parse(env.publicKeysJson) as { keys?: unknown };
    if (!Array.isArray(parsed.keys)) throw new Error('no keys array');
    published = parsed.keys.map((k) => {
      const { kid, pem } = k as { kid?: unknown; pem?: unknown };
      if (typeof kid !== 'string' || typeof pem !== 'string') throw new Error('each key needs kid and pem');
      return { kid, pem: pem.replace(/\\n/g, '\n') };
    });
  } catch (err) {
    throw new ConfigError('SVC_JWKS_PUBLIC_KEYS', `must be JSON {"keys":[{"kid","pem"}]} (${(err as Error).message})`);
  }
  const publics: { kid: string; key: CryptoKey }[] = [];
  for (const p of published) {
    try {
      publics.push({ kid: p.kid, key: await importSPKI(p.pem, ALG, { extractable: true }) });
    } catch {
      throw new ConfigError('SVC_JWKS_PUBLIC_KEYS', `public key ${p.kid} is not a valid SPKI PEM`);
    }
  }
  const active = publics.find((p) => p.kid === env.activeKid);
  if (!active)
    throw new ConfigError('SVC_JWKS_ACTIVE_KID', `kid ${env.activeKid} is not published in SVC_JWKS_PUBLIC_KEYS`);
  let privateKey: CryptoKey;
  try {
    privateKey = await importPKCS8(env.privatePem, ALG, { extractable: true });
  } catch {
    throw new ConfigError(privateName, 'is not an RSA PKCS#8 PEM');
  }
  const privJwk = await exportJWK(privateKey);
  const pubJwk = await exportJWK(active.key);
  if (privJwk.n !== pubJwk.n || privJwk.e !== pubJwk.e) {
    throw new ConfigError(privateName, `does not match the published public key of ${env.activeKid}`);
  }
  if (((privJwk.n?.length ?? 0) * 6) / 8 < 256 - 1) throw new ConfigError(privateName, 'must be at least 2048 bits');
  const signing = await importPKCS8(env.privatePem, ALG);
  return buildStore(env.activeKid, signing, publics);
}
