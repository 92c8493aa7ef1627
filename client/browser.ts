/**
 * `svc-auth/client/browser`: passkey ceremonies in a browser on top of the
 * client, through `@simplewebauthn/browser`: registration, sign-in,
 * conditional UI (passkey autofill, `mediation: 'conditional'`) and PRF
 * pass-through (salts go to the authenticator; the derived secrets come back
 * to the app and are never sent to the server, contract §3.6).
 */
import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import type { SvcClient } from './client.js';
import { SvcError } from './errors.js';
import type { Credential, SessionResponse, WebAuthnOptions } from './wire.js';

/** PRF outputs of an assertion (ArrayBuffers from the authenticator), for the app only. */
export interface PrfResults {
  first?: ArrayBuffer;
  second?: ArrayBuffer;
}

export interface PasskeySignIn {
  /** The session result (or the TOTP step) exactly as the OTP and magic-link steps give it. */
  session: SessionResponse;
  /** Present when `prf` was requested and the authenticator evaluated it. */
  prf: PrfResults | null;
}

export interface PasskeySignInOptions {
  /**
   * The identifier for `/login` (the API binds a passkey challenge to this
   * pre-auth step). Omit it when the page already called `client.login`.
   */
  identifier?: string;
  /** Passkey autofill: the browser offers passkeys in an `<input autocomplete="username webauthn">`. */
  conditional?: boolean;
  /** PRF salts (base64url, ≥ 32 bytes decoded) evaluated by the authenticator. */
  prf?: { salt: string; secondSalt?: string };
  credentialId?: string;
}

const unavailable = () =>
  new SvcError('webauthn_unavailable', 0, 'This browser does not support passkeys (WebAuthn is unavailable)');

function fromB64url(s: string): ArrayBuffer {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

/** The API sends PRF salts as base64url; WebAuthn wants buffers. */
function withPrfBuffers(options: WebAuthnOptions): WebAuthnOptions {
  const ev = (options['extensions'] as { prf?: { eval?: { first?: unknown; second?: unknown } } } | undefined)?.prf
    ?.eval;
  if (!ev || typeof ev.first !== 'string') return options;
  const evalBuffers = {
    first: fromB64url(ev.first),
    ...(typeof ev.second === 'string' ? { second: fromB64url(ev.second) } : {}),
  };
  return { ...options, extensions: { ...(options['extensions'] as object), prf: { eval: evalBuffers } } };
}

/** Splits PRF outputs off the assertion: the server refuses them (`prf_output_not_allowed`). */
function takePrf<T extends { clientExtensionResults?: Record<string, unknown> }>(
  response: T,
): { response: T; prf: PrfResults | null } {
  const ext = { ...(response.clientExtensionResults ?? {}) } as Record<string, unknown> & {
    prf?: { results?: PrfResults; enabled?: boolean };
  };
  const results = ext.prf?.results ?? null;
  if (ext.prf) {
    const { results: _drop, ...rest } = ext.prf;
    ext.prf = rest;
    if (Object.keys(rest).length === 0) delete ext.prf;
  }
  return { response: { ...response, clientExtensionResults: ext }, prf: results };
}

/**
 * Passkeys for a browser page.
 *
 * @example
 * const client = createSvcClient({ baseUrl: '/auth' });
 * const passkeys = createPasskeys(client);
 * if (passkeys.supported()) {
 *   const { session } = await passkeys.signIn({ identifier: email });
 *   await passkeys.register({ friendlyName: 'My laptop' });
 * }
 */
export function createPasskeys(client: SvcClient) {
  return {
    /** True when the browser has WebAuthn. */
    supported: (): boolean => browserSupportsWebAuthn(),
    /** True when the browser supports passkey autofill (conditional UI). */
    conditionalSupported: (): Promise<boolean> => browserSupportsWebAuthnAutofill(),

    /** Creates a passkey for the signed-in user. */
    async register(
      opts: { friendlyName?: string; requirePrf?: boolean; attachment?: 'platform' | 'cross-platform' } = {},
    ): Promise<{ credential: Credential }> {
      if (!browserSupportsWebAuthn()) throw unavailable();
      const options = await client.passkeyRegisterStart({
        ...(opts.requirePrf ? { requirePrf: true } : {}),
        ...(opts.attachment ? { attachment: opts.attachment } : {}),
      });
      const attestation = await startRegistration({ optionsJSON: options as never });
      const { response } = takePrf(attestation as never as { clientExtensionResults: Record<string, unknown> });
      const metadata = opts.friendlyName ? { friendlyName: opts.friendlyName } : undefined;
      const { credential } = await client.passkeyRegisterFinish({
        attestationResponse: response as never,
        ...(metadata ? { metadata } : {}),
      });
      return { credential };
    },

    /** Signs in with a passkey: `/login`, options, the browser ceremony, finish. */
    async signIn(opts: PasskeySignInOptions = {}): Promise<PasskeySignIn> {
      if (opts.identifier !== undefined && (typeof opts.identifier !== 'string' || !opts.identifier))
        throw new TypeError('passkeys.signIn: "identifier" must be a non-empty string when given');
      if (!browserSupportsWebAuthn()) throw unavailable();
      if (opts.conditional && !(await browserSupportsWebAuthnAutofill()))
        throw new SvcError(
          'webauthn_unavailable',
          0,
          'This browser does not support passkey autofill (conditional UI)',
        );
      if (opts.identifier) await client.login({ identifier: opts.identifier, passkeyAvailable: true });
      const options = await client.passkeyLoginStart({
        ...(opts.credentialId ? { credentialId: opts.credentialId } : {}),
        ...(opts.prf ? { prf: opts.prf } : {}),
      });
      const assertion = await startAuthentication({
        optionsJSON: withPrfBuffers(options) as never,
        useBrowserAutofill: opts.conditional === true,
      });
      const { response, prf } = takePrf(assertion as never as { clientExtensionResults: Record<string, unknown> });
      const session = await client.passkeyLoginFinish({ assertionResponse: response as never });
      return { session, prf };
    },

    /** Confirms the signed-in user with a passkey (step-up, contract §3.11); returns the fresh status. */
    async stepUp(opts: { prf?: { salt: string; secondSalt?: string } } = {}) {
      if (!browserSupportsWebAuthn()) throw unavailable();
      const options = await client.stepUpPasskeyStart(opts.prf ? { prf: opts.prf } : {});
      const assertion = await startAuthentication({ optionsJSON: withPrfBuffers(options) as never });
      const { response, prf } = takePrf(assertion as never as { clientExtensionResults: Record<string, unknown> });
      return { status: await client.stepUpPasskeyFinish({ assertionResponse: response as never }), prf };
    },
  };
}

export type Passkeys = ReturnType<typeof createPasskeys>;
export { browserSupportsWebAuthn, browserSupportsWebAuthnAutofill };
