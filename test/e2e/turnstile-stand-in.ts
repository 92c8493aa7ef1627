/**
 * A STAND-IN for Cloudflare Turnstile's widget script
 * (https://challenges.cloudflare.com/turnstile/v0/api.js), served by the
 * browser e2e suite through Playwright's `page.route`: the sandbox that runs
 * the suite has no internet, so the real script cannot load here.
 *
 * It mimics the part of Turnstile's documented explicit-render API
 * (https://developers.cloudflare.com/turnstile/get-started/client-side-rendering/)
 * that the demo (demo/public/auth.js) uses, with a test site key's behaviour
 * (https://developers.cloudflare.com/turnstile/troubleshooting/testing/):
 * - `turnstile.render(container, {sitekey, callback, 'error-callback', ...})`:
 *   `container` is an element or a CSS selector; throws like the real script
 *   when it or `sitekey` is missing; appends a visible 300×65 box like the real
 *   widget ("Success!", "Testing only, always pass."), then calls `callback`
 *   with the documented dummy token `XXXX.DUMMY.TOKEN.XXXX`; returns a widget id;
 * - `turnstile.reset(id?)`: drops the token and solves again (callback again);
 * - `turnstile.remove(id?)`: removes the box; the id is unknown afterwards;
 * - `turnstile.getResponse(id?)`: the current token, or undefined;
 * - no id: the last rendered widget, as the real script does.
 * It does not mimic the real widget's iframe, its interactive (managed)
 * checkbox, token expiry, `execute` or the implicit `.cf-turnstile` rendering.
 * Styles are set through the CSSOM (`el.style`), which the demo's
 * `style-src 'self'` permits. What the page asked is kept in
 * `window.__turnstileStandIn` for the test to read.
 */
export const TURNSTILE_SCRIPT_URL = /^https:\/\/challenges\.cloudflare\.com\/turnstile\/v0\/api\.js(\?.*)?$/;

export const TURNSTILE_STAND_IN_SCRIPT = `(() => {
  'use strict';
  const TOKEN = 'XXXX.DUMMY.TOKEN.XXXX';
  const widgets = new Map();
  const log = { renders: [], resets: 0, removes: 0 };
  window.__turnstileStandIn = log;
  let serial = 0;
  let last = null;

  const css = (el, styles) => { Object.assign(el.style, styles); return el; };
  const text = (tag, value, styles) => { const el = css(document.createElement(tag), styles); el.textContent = value; return el; };
  const find = (id) => widgets.get(id === undefined ? last : id);

  function paint(w, solved) {
    w.mark.textContent = solved ? '\\u2713' : '';
    css(w.mark, solved
      ? { background: '#1a7f37', borderColor: '#1a7f37', color: '#fff' }
      : { background: '#fff', borderColor: '#9aa0a6', color: '#fff' });
    w.status.textContent = solved ? 'Success!' : 'Verifying\\u2026';
  }

  function solve(w) {
    w.response = undefined;
    paint(w, false);
    clearTimeout(w.timer);
    // The test keys solve without a click; the real widget takes a moment too.
    w.timer = setTimeout(() => {
      if (!widgets.has(w.id)) return;
      w.response = TOKEN;
      paint(w, true);
      if (typeof w.params.callback === 'function') w.params.callback(TOKEN);
    }, 250);
  }

  function render(container, params) {
    const host = typeof container === 'string' ? document.querySelector(container) : container;
    if (!(host instanceof HTMLElement)) throw new Error('[Cloudflare Turnstile] Invalid or missing type for parameter "container".');
    if (!params || typeof params.sitekey !== 'string' || !params.sitekey) throw new Error('[Cloudflare Turnstile] Invalid or missing type for parameter "sitekey".');
    const id = 'cf-chl-widget-' + (++serial).toString(36);
    const box = css(document.createElement('div'), {
      width: '300px', height: '65px', boxSizing: 'border-box', display: 'flex', alignItems: 'center',
      gap: '12px', padding: '0 14px', background: '#fafafa', border: '1px solid #e0e0e0',
      borderRadius: '4px', fontFamily: 'system-ui, sans-serif', color: '#232323',
    });
    box.id = id;
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', 'Cloudflare Turnstile (test stand-in)');
    const mark = text('span', '', {
      width: '26px', height: '26px', borderRadius: '50%', border: '2px solid #9aa0a6', boxSizing: 'border-box',
      display: 'inline-flex', alignItems: 'center', justifyContent: 'center', fontSize: '15px', fontWeight: '700', flex: 'none',
    });
    const status = text('span', '', { fontSize: '14px', flex: '1' });
    const brand = css(document.createElement('div'), { textAlign: 'right', lineHeight: '1.25' });
    brand.append(
      text('div', 'CLOUDFLARE', { fontSize: '11px', fontWeight: '800', letterSpacing: '.5px', color: '#f38020' }),
      text('div', 'Testing only, always pass.', { fontSize: '10px', color: '#595959' }),
    );
    box.append(mark, status, brand);
    host.append(box);
    const w = { id, box, mark, status, params, response: undefined, timer: 0 };
    widgets.set(id, w);
    last = id;
    log.renders.push({ sitekey: params.sitekey, container: typeof container === 'string' ? container : '#' + host.id });
    solve(w);
    return id;
  }

  function reset(id) {
    const w = find(id);
    if (!w) return;
    log.resets++;
    solve(w);
  }

  function remove(id) {
    const w = find(id);
    if (!w) return;
    log.removes++;
    clearTimeout(w.timer);
    w.box.remove();
    widgets.delete(w.id);
    if (last === w.id) last = null;
  }

  function getResponse(id) {
    const w = find(id);
    return w ? w.response : undefined;
  }

  window.turnstile = { render, reset, remove, getResponse, ready: (cb) => cb(), isExpired: () => false };
})();
`;
