/**
 * `svc-auth/react`: a tiny React binding (React is an optional peer
 * dependency). `SvcProvider` hands a client to the tree, `useSvcClient` reads
 * it, `useSession` re-renders on every session change.
 */
import { createContext, createElement, useContext, useSyncExternalStore, type ReactNode } from 'react';
import type { SvcClient } from './client.js';
import type { SessionState } from './session.js';

const SvcContext = createContext<SvcClient | null>(null);

/**
 * Provides `client` to `useSvcClient` and `useSession`.
 *
 * @example
 * const client = createSvcClient({ baseUrl: '/auth' });
 * root.render(<SvcProvider client={client}><App /></SvcProvider>);
 */
export function SvcProvider(props: { client: SvcClient; children?: ReactNode }) {
  return createElement(SvcContext.Provider, { value: props.client }, props.children);
}

/**
 * The client of the nearest `SvcProvider`.
 *
 * @example
 * const client = useSvcClient();
 * const onSignOut = () => client.logout();
 */
export function useSvcClient(): SvcClient {
  const client = useContext(SvcContext);
  if (!client) throw new Error('useSvcClient: no client; wrap the tree in <SvcProvider client={…}>');
  return client;
}

/**
 * The session state (`unknown`, `signed-in` with user and active organization, or `signed-out`).
 *
 * @example
 * const session = useSession();
 * return session.status === 'signed-in' ? <p>{session.user.email}</p> : <SignIn />;
 */
export function useSession(): SessionState {
  const { session } = useSvcClient();
  return useSyncExternalStore(session.subscribe, session.get, session.get);
}
