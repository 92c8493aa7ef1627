/**
 * The `native_apps` system-config key: the Android and Apple apps
 * that share the web app's passkeys and links. From it come the association
 * files (`assetlinks.json`, `apple-app-site-association`) and the Android
 * WebAuthn origins, so nobody computes an `apk-key-hash` by hand.
 */
import * as z from 'zod/mini';
import { toBase64Url } from '../../common/encoding.js';

/** 32 bytes as upper- or lower-case colon-hex, the form `keytool -list -v` and Play Console print. */
export const SHA256_FINGERPRINT_PATTERN = /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){31}$/;
/** Android's package-name rule: at least two dot-separated segments, each starting with a letter. */
const PACKAGE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
/** Apple Team IDs are 10 upper-case alphanumerics. */
const TEAM_ID_PATTERN = /^[A-Z0-9]{10}$/;
/** Bundle IDs: alphanumerics, hyphens and periods (Apple's CFBundleIdentifier rule). */
const BUNDLE_ID_PATTERN = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

const unique =
  <T>(key: (v: T) => string) =>
  (a: T[]): boolean =>
    new Set(a.map(key)).size === a.length;

export const androidAppSchema = z.strictObject({
  packageName: z
    .string()
    .check(z.maxLength(255), z.regex(PACKAGE_NAME_PATTERN, 'must be an Android package name like com.example.app')),
  sha256CertFingerprints: z
    .array(
      z
        .string()
        .check(z.regex(SHA256_FINGERPRINT_PATTERN, 'must be a SHA-256 fingerprint: 32 colon-separated hex bytes')),
    )
    .check(
      z.minLength(1),
      z.maxLength(10),
      z.refine(
        unique((f: string) => f.toUpperCase()),
        'fingerprints must be unique',
      ),
    ),
});

export const appleAppSchema = z.strictObject({
  teamId: z.string().check(z.regex(TEAM_ID_PATTERN, 'must be a 10-character Apple Team ID')),
  bundleId: z.string().check(z.maxLength(155), z.regex(BUNDLE_ID_PATTERN, 'must be a bundle id like com.example.app')),
  /** Universal-link paths for `applinks` (AASA `components` "/" patterns); none = passkeys only. */
  applinksPaths: z.optional(
    z
      .array(
        z.string().check(z.minLength(1), z.maxLength(512), z.regex(/^\/[^\s]*$/, 'must be a path starting with /')),
      )
      .check(z.maxLength(50)),
  ),
});

export const nativeAppsSchema = z.strictObject({
  android: z.array(androidAppSchema).check(
    z.maxLength(50),
    z.refine(
      unique((a: { packageName: string }) => a.packageName),
      'package names must be unique',
    ),
  ),
  apple: z.array(appleAppSchema).check(
    z.maxLength(50),
    z.refine(
      unique((a: { teamId: string; bundleId: string }) => `${a.teamId}.${a.bundleId}`),
      'app ids must be unique',
    ),
  ),
});

export type NativeApps = z.infer<typeof nativeAppsSchema>;
export type AndroidApp = z.infer<typeof androidAppSchema>;
export type AppleApp = z.infer<typeof appleAppSchema>;

export const NO_NATIVE_APPS: NativeApps = { android: [], apple: [] };

/** Colon-hex → bytes; the caller has validated the pattern. */
function fingerprintBytes(fingerprint: string): Uint8Array {
  return Uint8Array.from(fingerprint.split(':'), (h) => parseInt(h, 16));
}

/**
 * The WebAuthn origin Android reports for an app signed with this certificate
 * (`android:apk-key-hash:` + unpadded base64url of the SHA-256 bytes).
 *
 * @example
 * apkKeyHashOrigin('AB:CD:…') // 'android:apk-key-hash:q80…'
 */
export function apkKeyHashOrigin(fingerprint: string): string {
  return `android:apk-key-hash:${toBase64Url(fingerprintBytes(fingerprint))}`;
}

/** Every Android origin derived from the configured apps, deduplicated. */
export function nativeOrigins(apps: NativeApps): string[] {
  return [...new Set(apps.android.flatMap((a) => a.sha256CertFingerprints.map(apkKeyHashOrigin)))];
}
