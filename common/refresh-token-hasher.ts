/**
 * Where the refresh token's bcrypt runs. bcrypt is pure JavaScript here
 * (~1.6 ms at cost 4, ~100 ms at cost 10 on this machine), so inline it holds
 * the event loop for that long on every sign-in and refresh. The Node and Bun
 * entries pass a worker-thread pool (`createBcryptPool` from `svc-auth/node`); Workers
 * and Deno keep it inline.
 *
 * @example
 * const api = await createAuthApi({ env, refreshTokenHasher: createBcryptPool() });
 */
export interface RefreshTokenHasher {
  hash(token: string, cost: number): Promise<string>;
  compare(token: string, storedHash: string): Promise<boolean>;
}
