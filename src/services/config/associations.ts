/**
 * The public part of the native-app and related-origin config:
 * what the adapter needs to build `/.well-known/assetlinks.json`,
 * `/.well-known/apple-app-site-association` and `/.well-known/webauthn`.
 * Everything here is published by those files anyway; nothing else leaks.
 */
import type { SystemConfigValues } from '../../config/keys.js';

/** Same lifetime as the JWKS: an edited app list reaches the files within five minutes. */
export const PUBLIC_ASSOCIATIONS_MAX_AGE_SECONDS = 300;

export interface PublicAssociations {
  /** The configured web origins (http(s) entries of `origins`), for WebAuthn related origins. */
  webOrigins: string[];
  android: { packageName: string; sha256CertFingerprints: string[] }[];
  apple: { appId: string; applinksPaths: string[] }[];
}

export function publicAssociations(cfg: Pick<SystemConfigValues, 'origins' | 'native_apps'>): PublicAssociations {
  return {
    webOrigins: [...new Set(cfg.origins.filter((o) => /^https?:/.test(o)).map((o) => o.replace(/\/$/, '')))],
    // Upper case, as `keytool` prints them and Google's statement examples show them.
    android: cfg.native_apps.android.map((a) => ({
      packageName: a.packageName,
      sha256CertFingerprints: a.sha256CertFingerprints.map((f) => f.toUpperCase()),
    })),
    apple: cfg.native_apps.apple.map((a) => ({
      appId: `${a.teamId}.${a.bundleId}`,
      applinksPaths: a.applinksPaths ?? [],
    })),
  };
}
