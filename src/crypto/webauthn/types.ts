/**
 * The JSON shapes of the WebAuthn ceremonies as the browser (or
 * `@simplewebauthn/browser`) sends and receives them (WebAuthn L3 §5.1.8–§5.1.10,
 * `PublicKeyCredential.toJSON()`), defined here so the API does not depend on
 * `@simplewebauthn/server` for types. Fields the verifier does not read are
 * optional and loosely typed, so the library's stricter types are assignable.
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

/** An entry of `excludeCredentials` / `allowCredentials`. */
export interface CredentialDescriptorJSON {
  id: string;
  transports?: string[];
  type: 'public-key';
}
