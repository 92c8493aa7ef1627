/**
 * Escaping HTML templates for the admin console. Every interpolated value is
 * escaped unless it is already `Html` (the output of another template), so a
 * value from the API can never become markup.
 */
import { describeDevice, deviceLabel as wordDevice } from '../core/device.js';

/** Markup that is safe to insert as is. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attribute values. */
export const esc = (value: unknown): string => String(value).replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);

function part(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(part).join('');
  return esc(value);
}

/**
 * Tagged template: `html\`<td>${user.email}</td>\`` escapes `user.email`.
 * Arrays are joined; `null`, `undefined` and `false` render nothing.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += part(values[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** JSON for a `<script type="application/json">` block: `<` is escaped so the data cannot close the element. */
export const jsonBlock = (id: string, data: unknown): Html =>
  new Html(`<script type="application/json" id="${esc(id)}">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>`);

/** `2026-11-25T14:03:00.000Z` → `2026-11-25 14:03 UTC`; `—` for none. */
export function when(iso: unknown): string {
  if (typeof iso !== 'string' || !iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A pill per role or tag. */
export const pills = (items: unknown, kind = ''): Html =>
  html`${(Array.isArray(items) ? items : []).map((r) => html`<span class="pill ${kind}">${r}</span>`)}`;

/** A short device label from the stored name or User-Agent (`Chrome 131 on Linux`, parsed by bowser); the raw string goes in a title. */
export function deviceLabel(deviceName: string | null | undefined, userAgent: string | null | undefined): string {
  return deviceName || wordDevice(describeDevice(userAgent));
}
