/** Login-policy check (contract §3.0 step 8): 403 `login_method_disabled` when a method is off. */
import type { LoginMethod } from '../config/keys.js';
import type { Deps } from '../deps.js';
import { fail } from '../errors.js';

export async function assertLoginMethod(deps: Pick<Deps, 'config'>, ...anyOf: LoginMethod[]): Promise<void> {
  const { login_methods } = await deps.config.get();
  if (!anyOf.some((m) => login_methods.includes(m))) throw fail('login_method_disabled');
}
