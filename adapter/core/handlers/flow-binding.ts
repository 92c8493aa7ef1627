/**
 * A flow binding in cookie transport: the API hands the caller that
 * started a flow a random `binding` (OAuth login, a `same_device` magic link)
 * and requires it to finish. A browser page never sees it: the start's answer
 * moves it into a signed HttpOnly cookie, and the finishing request sends the
 * cookie's binding upstream in place of any `binding` the page wrote (an
 * attacker knows his own). Bearer transport passes `binding` through: the app
 * keeps it.
 */
import type { AdapterCore } from '../core.js';
import type { CookiePayload } from '../../../common/contract.js';
import type { SetCookieCommand } from '../result.js';
import { isObject, omit } from './forward.js';

type BindingPayload = Extract<CookiePayload, { binding: string }>;

/** The upstream body without its `binding` and the binding itself (absent unless a non-empty string). */
export function takeBinding(body: unknown): { body: unknown; binding: string | undefined } {
  if (!isObject(body)) return { body, binding: undefined };
  const binding = body['binding'];
  return { body: omit(body, 'binding'), binding: typeof binding === 'string' && binding !== '' ? binding : undefined };
}

export const bindingCookie = (name: string, payload: BindingPayload, maxAgeSeconds: number): SetCookieCommand => ({
  name,
  payload,
  maxAge: maxAgeSeconds,
});

/** The verified binding cookie of `kind`, or null (absent, forged, expired, another kind). */
export function readBindingCookie<K extends BindingPayload['kind']>(
  core: AdapterCore,
  name: string,
  kind: K,
  cookies: Record<string, string> | undefined,
): Extract<BindingPayload, { kind: K }> | null {
  const cookie = core.codec.verify(cookies?.[name], kind, core.now()) as Extract<BindingPayload, { kind: K }> | null;
  return cookie && typeof cookie.binding === 'string' ? cookie : null;
}

/** The page's body with the cookie's binding in place of any it sent. */
export const withBinding = (body: unknown, binding: string): unknown =>
  isObject(body) ? { ...(omit(body, 'binding') as Record<string, unknown>), binding } : body;
