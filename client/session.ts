/** `client.session`: the signed-in user as the client last saw it, with change notifications. */

export interface SessionUser {
  id: string;
  email: string | null;
  phone: string | null;
  roles: string[];
}

/** Why the client considers itself signed out. */
export type SignedOutReason =
  | 'logout'
  | 'refresh_token_reused'
  | 'invalid_refresh_token'
  | 'unauthorized'
  | 'user_deleted'
  | 'initial';

export type SessionState =
  | { status: 'unknown'; user: null; activeOrganizationId: null }
  | { status: 'signed-in'; user: SessionUser; activeOrganizationId: string | null }
  | { status: 'signed-out'; user: null; activeOrganizationId: null; reason: SignedOutReason };

export type SessionListener = (state: SessionState) => void;

/**
 * Session state with subscribe/unsubscribe.
 *
 * @example
 * const off = client.session.subscribe((s) => render(s.status === 'signed-in' ? s.user.email : 'signed out'));
 * off(); // unsubscribe
 */
export interface SessionStore {
  /** The current state (synchronous; stable object until the next change). */
  get(): SessionState;
  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: SessionListener): () => void;
}

export interface SessionControl extends SessionStore {
  set(state: SessionState): void;
  signedIn(user: SessionUser, activeOrganizationId: string | null): void;
  signedOut(reason: SignedOutReason): void;
}

const same = (a: SessionState, b: SessionState) => JSON.stringify(a) === JSON.stringify(b);

export function createSessionStore(): SessionControl {
  let state: SessionState = { status: 'unknown', user: null, activeOrganizationId: null };
  const listeners = new Set<SessionListener>();
  const set = (next: SessionState) => {
    if (same(state, next)) return;
    state = next;
    for (const l of [...listeners]) {
      try {
        l(state);
      } catch {
        // A throwing listener must not break the call that changed the session nor the other listeners.
      }
    }
  };
  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    set,
    signedIn: (user, activeOrganizationId) => set({ status: 'signed-in', user, activeOrganizationId }),
    signedOut: (reason) => set({ status: 'signed-out', user: null, activeOrganizationId: null, reason }),
  };
}
