/** Changing email or phone (docs/contact-change.md). */
import { MessageResponse } from '../http/responses/common.js';
import { ContactChanged, ContactChangeRequested } from '../http/responses/contact-change.js';
import { contactReportBody, contactVerifyBody, emailChangeBody, phoneChangeBody } from '../routes/contact-change.js';
import { op, type Operation } from './operation.js';

const A = 'access' as const;
const verifyErrors = ['invalid_verification_token'] as const;

export const contactChangeOperations: Operation[] = [
  op('POST', '/users/me/email/change', 'Send a code to a new email address', A, ContactChangeRequested, {
    body: emailChangeBody,
    stepUp: 'if-capable',
  }),
  op('POST', '/users/me/phone/change', 'Send a code to a new phone number', A, ContactChangeRequested, {
    body: phoneChangeBody,
    stepUp: 'if-capable',
  }),
  op('POST', '/users/me/email/verify', 'Complete an email change with its code', A, ContactChanged, {
    body: contactVerifyBody,
    errors: [...verifyErrors, 'email_in_use'],
  }),
  op('POST', '/users/me/phone/verify', 'Complete a phone change with its code', A, ContactChanged, {
    body: contactVerifyBody,
    errors: [...verifyErrors, 'phone_in_use'],
  }),
  op('POST', '/users/contact-change/report', 'Report a change the old address did not make', 'none', MessageResponse, {
    body: contactReportBody,
    errors: [...verifyErrors],
  }),
];
