/** Recovery-code routes (docs/recovery-codes.md). */
import { StepUpFreshResponse } from '../http/responses/account.js';
import { RecoveryCodesGenerated } from '../http/responses/recovery-codes.js';
import { SessionEnvelope } from '../http/responses/session.js';
import { codeBody } from '../routes/totp.js';
import { op, type Operation } from './operation.js';

export const recoveryCodeOperations: Operation[] = [
  op(
    'POST',
    '/recovery-codes',
    'Generate ten one-time recovery codes (shown once; voids the previous set)',
    'access',
    RecoveryCodesGenerated,
    {
      stepUp: 'if-capable',
      errors: ['recovery_codes_unavailable'],
      description:
        'Needs TOTP or a passkey (else 403 `recovery_codes_unavailable`) and so always a fresh step-up. The answer is `Cache-Control: no-store`.',
    },
  ),
  op(
    'POST',
    '/recovery-codes/verify-login',
    'Finish a sign-in with a recovery code instead of a TOTP code (ephemeral ctx mfa)',
    'ephemeral:mfa',
    SessionEnvelope,
    {
      body: codeBody,
      errors: ['recovery_code_invalid', 'account_locked'],
      description: 'A wrong, malformed or spent code is 401 `recovery_code_invalid` and a counted lockout failure.',
    },
  ),
  op('POST', '/step-up/recovery-code', 'Step up with a recovery code', 'access', StepUpFreshResponse, {
    body: codeBody,
    errors: ['recovery_code_invalid', 'step_up_unavailable', 'account_locked'],
    description: 'Spends the code; `method` is `recovery_code`. 403 `step_up_unavailable` without TOTP or a passkey.',
  }),
];
