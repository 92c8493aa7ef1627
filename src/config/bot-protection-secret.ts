/**
 * Which env variable `bot_protection.secretEnv` may name: the shape of
 * bot-protection.ts, and never a variable the service reads for itself
 * (`isServiceEnvName`, the OAuth providers' rule), because the value is
 * posted to the siteverify endpoint. Checked on PATCH and before each call.
 */
import { challengeSecretEnvShape } from './bot-protection.js';
import { isServiceEnvName } from './oauth-secret-env.js';

export const challengeSecretEnvAllowed = (name: string): boolean =>
  challengeSecretEnvShape(name) && !isServiceEnvName(name);
