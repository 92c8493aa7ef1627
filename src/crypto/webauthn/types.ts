/**
 * The JSON shapes of the WebAuthn ceremonies as the browser (or
 * `@simplewebauthn/browser`) sends them (WebAuthn L3 §5.1.8–§5.1.10,
 * `PublicKeyCredential.toJSON()`), as the routes hand them to the verifier.
 * Looser than `@simplewebauthn/server`'s types (`type` and `transports` are
 * plain strings): the request schemas check the shape, the library the
 * values, and a wrong value is a refused ceremony, not a type error.
 */

/** `RegistrationResponseJSON` (`navigator.credentials.create()` → JSON). */
export interface RegistrationResponseJSON {
  id: string;
  rawId: string;
  type: string;
  response: {
    clientDataJSON: string;
    attestationObject: string;
    transports?: string[] | undefined;
  };
  authenticatorAttachment?: string | undefined;
  clientExtensionResults?: unknown;
}

/** `AuthenticationResponseJSON` (`navigator.credentials.get()` → JSON). */
export interface AuthenticationResponseJSON {
  id: string;
  rawId: string;
  type: string;
  response: {
    clientDataJSON: string;
    authenticatorData: string;
    signature: string;
    userHandle?: string | undefined;
  };
  authenticatorAttachment?: string | undefined;
  clientExtensionResults?: unknown;
}

export type CredentialDeviceType = 'singleDevice' | 'multiDevice';
