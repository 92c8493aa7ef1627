/**
 * `svc keys rotate`: the order of a key rotation the API supports. The API
 * signs with SVC_JWKS_ACTIVE_KID only but verifies, and serves in its JWKS,
 * every key of SVC_JWKS_PUBLIC_KEYS; the svc adapters cache that JWKS for
 * JWKS_CACHE_MS and refetch on an unknown kid at most every
 * JWKS_REFETCH_COOLDOWN_MS. Publishing first means no verifier ever meets a
 * kid it cannot resolve.
 */
import { JWKS_CACHE_MS, JWKS_REFETCH_COOLDOWN_MS, JWT_SKEW_SECONDS } from '../../adapter/core/jwks.js';
import type { CommandContext } from '../commands.js';
import { EXIT, type ExitCode } from '../exit-codes.js';

/** The kids published in the given environment, or null when it has none or they do not parse. */
function publishedKids(env: Record<string, string | undefined>): string[] | null {
  try {
    const parsed = JSON.parse(env['SVC_JWKS_PUBLIC_KEYS'] ?? '') as { keys?: { kid?: unknown }[] };
    const kids = (parsed.keys ?? []).map((k) => k.kid).filter((k): k is string => typeof k === 'string');
    return kids.length ? kids : null;
  } catch {
    return null;
  }
}

export async function run({ env, out }: CommandContext): Promise<ExitCode> {
  const active = env['SVC_JWKS_ACTIVE_KID']?.trim() || null;
  const published = publishedKids(env);
  const old = active ?? '<old>';
  const cacheSeconds = JWKS_CACHE_MS / 1000;
  const steps = [
    `Generate the new key: svc keys generate --kid <new> --out new-key.env (keep ${old} as it is for now).`,
    `Publish before switching: set SVC_JWKS_PUBLIC_KEYS to both keys, {"keys":[{"kid":"${old}",…},{"kid":"<new>",…}]}, add SVC_JWKS_KEY_<new>_PRIVATE, keep SVC_JWKS_ACTIVE_KID=${old}, and redeploy every API instance. The API's JWKS now lists both kids; tokens are still signed with ${old}.`,
    `Wait at least ${cacheSeconds} s: svc adapters cache the JWKS for ${cacheSeconds} s (they refetch on an unknown kid at most every ${JWKS_REFETCH_COOLDOWN_MS / 1000} s). Wait longer if other verifiers cache it longer.`,
    `Switch: set SVC_JWKS_ACTIVE_KID=<new> and redeploy. New access and ephemeral tokens carry kid <new>; tokens signed with ${old} still verify because ${old} is still published.`,
    `Retire after the longest token lifetime: access_token_ttl (svc config get access_token_ttl; default 15m, at most 24h) plus ${JWT_SKEW_SECONDS} s of clock skew. Then remove ${old} from SVC_JWKS_PUBLIC_KEYS, delete SVC_JWKS_KEY_${old}_PRIVATE and redeploy.`,
  ];
  const notes = [
    'Refresh tokens are opaque (not signed with these keys) and service tokens use API_SERVICE_TOKEN: a rotation signs nobody out.',
    'svc doctor checks at every step that the active kid is published and matches its private key.',
  ];
  out.line(out.paint('bold', 'Rotating the RS256 signing key (publish first, then switch):'));
  if (active || published)
    out.line(`Now: active kid ${active ?? '(unset)'}; published: ${published?.join(', ') ?? '(none parse)'}`);
  steps.forEach((s, i) => out.line(`  ${i + 1}. ${s}`));
  notes.forEach((n) => out.line(out.paint('dim', `  - ${n}`)));
  out.result({ ok: true, activeKid: active, publishedKids: published, steps, notes, jwksCacheSeconds: cacheSeconds });
  return EXIT.ok;
}
