/**
 * Relying-party settings (contract §3.6, §7): RP name
 * `app_name`, RP ID `rpid`, and every entry of `origins` as an accepted
 * clientDataJSON origin — web origins, iOS native (`https://<rpid>`, which an
 * operator lists like any web origin) and Android `android:apk-key-hash:<b64url>`,
 * plus the apk-key-hash origin of every certificate listed in `native_apps`.
 * Nothing else: an origin outside this list is refused at registration and
 * login (WebAuthn L3 §5.11 related origins are exactly the listed web origins).
 */
import type { SystemConfigValues } from '../../config/keys.js';
import { nativeOrigins } from '../../config/native-apps.js';

export const CEREMONY_TIMEOUT_MS = 60_000;
/** Ed25519, ES256, RS256 (contract §7). */
export const SUPPORTED_ALGORITHMS = [-8, -7, -257];

export interface RelyingParty {
  rpName: string;
  rpId: string;
  origins: string[];
}

export function relyingParty(
  cfg: Pick<SystemConfigValues, 'app_name' | 'rpid' | 'origins' | 'native_apps'>,
): RelyingParty {
  // Config validation allows one trailing slash on http(s) origins; clientDataJSON never has one.
  const listed = cfg.origins.map((o) => (o.startsWith('android:') ? o : o.replace(/\/$/, '')));
  const origins = [...new Set([...listed, ...nativeOrigins(cfg.native_apps)])];
  return { rpName: cfg.app_name, rpId: cfg.rpid, origins };
}
