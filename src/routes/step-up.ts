/** Step-up status and passkey step-up (contract §3.11, §4.5). TOTP step-up lives with TOTP. */
import type { AuthenticationResponseJSON } from '../crypto/webauthn/types.js';
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { parseBody } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { stepUpStatus } from '../services/session/step-up.js';
import { finishPasskeyStepUp, startPasskeyStepUp } from '../services/webauthn/step-up.js';
import { assertionFinishSchema, assertionStartSchema } from './webauthn-schemas.js';
import { recoveryCodeStepUp } from './recovery-codes.js';

export const stepUpRoutes = new Hono<AppEnv>()
  .use('/step-up/*', requireAccess)
  .get('/step-up/status', (c) => c.json(stepUpStatus(c.get('access').session, c.get('deps').clock.now())))
  .post('/step-up/webauthn/start', async (c) => {
    const body = parseBody(c, assertionStartSchema);
    return c.json(await startPasskeyStepUp(c.get('deps'), { auth: c.get('access'), client: c.get('client'), ...body }));
  })
  .post('/step-up/webauthn/finish', async (c) => {
    const body = parseBody(c, assertionFinishSchema);
    const response = body.assertionResponse as unknown as AuthenticationResponseJSON;
    return c.json(
      await finishPasskeyStepUp(c.get('deps'), { auth: c.get('access'), client: c.get('client'), response }),
    );
  })
  // Step-up with a recovery code (docs/recovery-codes.md).
  .route('/', recoveryCodeStepUp);
