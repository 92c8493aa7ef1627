/** Passkey registration and login (contract §3.6). */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '../crypto/webauthn/types.js';
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { responseFloor } from '../http/floor.js';
import { credentialJson } from '../http/serialize.js';
import { parseBody, parseQuery } from '../http/validate.js';
import { requireAccess, requireEphemeral } from '../middleware/auth.js';
import { requireStepUpIfCapable } from '../middleware/require-step-up.js';
import { finishPasskeyLogin, startPasskeyLogin } from '../services/webauthn/login.js';
import { finishRegistration, startRegistration } from '../services/webauthn/registration.js';
import {
  assertionFinishSchema,
  assertionStartSchema,
  registerFinishSchema,
  registerStartQuerySchema,
  registerStartSchema,
} from './webauthn-schemas.js';

export const webauthnRoutes = new Hono<AppEnv>()
  // Enrollment takes an access credential only (no pre-account takeover,
  // contract §3.6); +SU? once the user has a factor.
  .post('/webauthn/register/start', requireAccess, requireStepUpIfCapable, async (c) => {
    const query = parseQuery(c, registerStartQuerySchema);
    const body = parseBody(c, registerStartSchema);
    const { user, session } = c.get('access');
    const options = await startRegistration(c.get('deps'), {
      user,
      sessionId: session.id,
      client: c.get('client'),
      attachment: body.attachment ?? query.attachment,
      requirePrf: body.requirePrf ?? (query.requirePrf === undefined ? undefined : query.requirePrf === 'true'),
      requestPrf: body.requestPrf ?? (query.requestPrf === undefined ? undefined : query.requestPrf === 'true'),
    });
    return c.json(options);
  })
  .post('/webauthn/register/finish', requireAccess, requireStepUpIfCapable, async (c) => {
    const body = parseBody(c, registerFinishSchema);
    const { user, session } = c.get('access');
    const credential = await finishRegistration(c.get('deps'), {
      user,
      sessionId: session.id,
      client: c.get('client'),
      response: body.attestationResponse as unknown as RegistrationResponseJSON,
      metadata: body.metadata,
    });
    return c.json({ message: 'Success', credential: credentialJson(credential) });
  })
  .post('/webauthn/login/start', responseFloor, requireEphemeral('login'), async (c) => {
    const body = parseBody(c, assertionStartSchema);
    const options = await startPasskeyLogin(c.get('deps'), {
      auth: c.get('ephemeral'),
      client: c.get('client'),
      ...body,
    });
    return c.json(options);
  })
  .post('/webauthn/login/finish', requireEphemeral('login'), async (c) => {
    const body = parseBody(c, assertionFinishSchema);
    const result = await finishPasskeyLogin(c.get('deps'), {
      auth: c.get('ephemeral'),
      client: c.get('client'),
      response: body.assertionResponse as unknown as AuthenticationResponseJSON,
    });
    return c.json(result);
  });
