/**
 * What a contact change sends: the code to the new address, and the notice to
 * the old one. Sent by the API's own sender (DELIVERY_MODE), off the response
 * path; a failure is audited by dispatchMessage and never changes the answer.
 */
import type { Deps } from '../../deps.js';
import type { MessagePayload } from '../delivery/types.js';
import type { OtpChannel } from '../otp/codes.js';

export function codePayload(channel: OtpChannel, to: string, code: string): MessagePayload {
  return channel === 'email' ? { kind: 'contact_change_email', to, code } : { kind: 'contact_change_sms', to, code };
}

/** `<origins[0]>/contact-change/report?token=…`: the app's page posts the token to `/users/contact-change/report`. */
export async function reportUrl(deps: Pick<Deps, 'config'>, token: string): Promise<string> {
  const { origins } = await deps.config.get();
  const url = new URL(`${origins[0]!.replace(/\/+$/, '')}/contact-change/report`);
  url.searchParams.set('token', token);
  return url.toString();
}

/**
 * The notice goes to the old email for an email change, and to the account's
 * email for a phone change (the one address that did not change; an SMS per
 * notice would also be a pumping target).
 */
export function noticePayload(channel: OtpChannel, to: string, changedTo: string, url: string): MessagePayload {
  return {
    kind: 'contact_change_notice_email',
    to,
    channel,
    changedTo: maskAddress(channel, changedTo),
    reportUrl: url,
  };
}

/** `j***@example.com`, `+33******78`: enough for the owner to recognise, not to hand the address out. */
export function maskAddress(channel: OtpChannel, value: string): string {
  if (channel === 'phone') return `${value.slice(0, 3)}${'*'.repeat(Math.max(0, value.length - 5))}${value.slice(-2)}`;
  const at = value.lastIndexOf('@');
  return `${value.slice(0, 1)}***${value.slice(at)}`;
}
