/**
 * Relying-party settings (spec "WebAuthn keys", contract §3.6, §7): RP name
 * `app_name`, RP ID `rpid`, and every entry of `origins` as an accepted
 * clientDataJSON origin — web origins, iOS native (`https://<rpid>`, which an
 * operator lists like any web origin) and Android `android:apk-key-hash:<b64url>`.
 */
import type { SystemConfigValues } from '../../config/keys.js';

export const CEREMONY_TIMEOUT_MS = 60_000;
/** Ed25519, ES256, RS256 (contract §7). */
export const SUPPORTED_ALGORITHMS = [-8, -7, -257];

export interface RelyingParty {
  rpName: string;
  rpId: string;
  origins: string[];
}

export function relyingParty(cfg: Pick<SystemConfigValues, 'app_name' | 'rpid' | 'origins'>): RelyingParty {
  // Config validation allows one trailing slash on http(s) origins; clientDataJSON never has one.
  const origins = cfg.origins.map((o) => (o.startsWith('android:') ? o : o.replace(/\/$/, '')));
  return { rpName: cfg.app_name, rpId: cfg.rpid, origins };
}
