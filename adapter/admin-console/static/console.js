// svc admin console: the little JS behind the server-rendered pages.
// Writes go to <mount>/api/... (the adapter core, origin-guarded); a 403
// step_up_required runs the passkey or authenticator-code step-up and retries once.
const body = document.body;
const base = body.dataset.base || '';
const api = `${base}/api`;
const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

function notice(kind, text) {
  const el = $('#notice');
  el.className = `notice ${kind}`;
  el.textContent = text;
  el.scrollIntoView({ block: 'nearest' });
}

function describeError(res) {
  const b = res.body || {};
  if (b.error === 'cross_site_request_blocked')
    return 'Blocked: this request did not come from the console’s own origin.';
  if (b.error === 'forbidden') return 'You need the admin:write role for this.';
  const text = b.message || b.error || `Request failed (${res.status})`;
  return b.error && b.message ? `${text} (${b.error})` : text;
}

async function send(method, path, payload) {
  const init = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (payload !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(payload);
  }
  let res;
  try {
    res = await fetch(`${api}${path}`, init);
  } catch {
    return { status: 0, body: { error: 'network_error', message: 'The console could not be reached.' } };
  }
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, body: json };
}

/** One API call with the step-up retry. */
async function request(method, path, payload) {
  let res = await send(method, path, payload);
  if (res.status === 403 && res.body && res.body.error === 'step_up_required') {
    const confirmed = await stepUp();
    if (!confirmed)
      return { status: 403, body: { error: 'step_up_required', message: 'The action needs you to confirm it’s you.' } };
    res = await send(method, path, payload);
  }
  if (res.status === 401) notice('error', 'Your session has ended. Reload the page to sign in again.');
  return res;
}

// ---- WebAuthn without a library: base64url <-> bytes, and the assertion as JSON.
const fromB64u = (s) =>
  Uint8Array.from(
    atob(
      s
        .replace(/-/g, '+')
        .replace(/_/g, '/')
        .padEnd(Math.ceil(s.length / 4) * 4, '='),
    ),
    (c) => c.charCodeAt(0),
  );
const toB64u = (buf) =>
  btoa(String.fromCharCode(...new Uint8Array(buf)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

async function passkeyStepUp() {
  if (!window.PublicKeyCredential) throw new Error('This browser has no passkey support.');
  const start = await send('POST', '/step-up/webauthn/start', {});
  if (start.status !== 200) throw new Error(describeError(start));
  const o = start.body;
  const publicKey = {
    challenge: fromB64u(o.challenge),
    rpId: o.rpId,
    timeout: o.timeout,
    userVerification: o.userVerification,
    allowCredentials: (o.allowCredentials || []).map((c) => ({
      type: 'public-key',
      id: fromB64u(c.id),
      transports: c.transports,
    })),
  };
  const cred = await navigator.credentials.get({ publicKey });
  if (!cred) throw new Error('No passkey was used.');
  const r = cred.response;
  const assertionResponse = {
    id: cred.id,
    rawId: toB64u(cred.rawId),
    type: cred.type,
    clientExtensionResults: {},
    authenticatorAttachment: cred.authenticatorAttachment || undefined,
    response: {
      clientDataJSON: toB64u(r.clientDataJSON),
      authenticatorData: toB64u(r.authenticatorData),
      signature: toB64u(r.signature),
      userHandle: r.userHandle ? toB64u(r.userHandle) : undefined,
    },
  };
  const finish = await send('POST', '/step-up/webauthn/finish', { assertionResponse });
  if (finish.status !== 200) throw new Error(describeError(finish));
}

function stepUp() {
  const dialog = $('#step-up-dialog');
  const error = $('#step-up-error');
  const code = $('#step-up-code');
  const listeners = new AbortController();
  const { signal } = listeners;
  error.textContent = '';
  code.value = '';
  return new Promise((resolve) => {
    const finish = (ok) => {
      listeners.abort();
      if (dialog.open) dialog.close(ok ? 'done' : 'cancel');
      resolve(ok);
    };
    $('#step-up-passkey').addEventListener(
      'click',
      async () => {
        error.textContent = '';
        try {
          await passkeyStepUp();
          finish(true);
        } catch (e) {
          error.textContent =
            e && e.name === 'NotAllowedError'
              ? 'The passkey prompt was dismissed.'
              : e?.message || 'Passkey confirmation failed.';
        }
      },
      { signal },
    );
    $('#step-up-code-submit').addEventListener(
      'click',
      async () => {
        error.textContent = '';
        if (!/^\d{6}$/.test(code.value.trim())) {
          error.textContent = 'Enter the 6-digit code.';
          return;
        }
        const res = await send('POST', '/totp/verify-mfa', { code: code.value.trim() });
        if (res.status === 200) finish(true);
        else error.textContent = describeError(res);
      },
      { signal },
    );
    dialog.addEventListener('close', () => finish(dialog.returnValue === 'done'), { signal });
    // Escape closes without a value and keeps the previous one: start from none.
    dialog.returnValue = '';
    dialog.showModal();
  });
}

// ---- Confirmation dialog (with an optional "type the name to confirm").
function confirmAction(text, expected) {
  const dialog = $('#confirm-dialog');
  $('#confirm-text').textContent = text;
  const typeLabel = $('#confirm-type-label');
  const input = $('#confirm-input');
  const ok = $('#confirm-ok');
  input.value = '';
  typeLabel.classList.toggle('hidden', !expected);
  $('#confirm-expected').textContent = expected || '';
  ok.disabled = Boolean(expected);
  const listeners = new AbortController();
  input.addEventListener(
    'input',
    () => {
      ok.disabled = input.value.trim() !== expected;
    },
    { signal: listeners.signal },
  );
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        listeners.abort();
        resolve(dialog.returnValue === 'ok');
      },
      { once: true },
    );
    dialog.returnValue = '';
    dialog.showModal();
    (expected ? input : ok).focus();
  });
}

// ---- Forms: fields become a JSON body by their data-kind.
function fieldValue(el) {
  const kind = el.dataset.kind;
  if (kind === 'bool') return el.checked;
  if (kind === 'number') return el.value.trim() === '' ? null : Number(el.value);
  if (kind === 'list')
    return el.value
      .split(/[,\n]/)
      .map((s) => s.trim())
      .filter(Boolean);
  if (kind === 'json') {
    try {
      return JSON.parse(el.value);
    } catch {
      throw Object.assign(new Error('Not valid JSON'), { field: el.name });
    }
  }
  return el.value.trim();
}

function formBody(form, onlyChanged) {
  const out = {};
  const named = $$('input[name], select[name], textarea[name]', form).filter((el) => !el.disabled);
  const groups = new Map();
  for (const el of named) {
    if (el.type === 'checkbox' && !el.dataset.kind) {
      if (!groups.has(el.name)) groups.set(el.name, []);
      if (el.checked) groups.get(el.name).push(el.value);
      continue;
    }
    const v = fieldValue(el);
    if (onlyChanged && JSON.stringify(v) === el.dataset.initial) continue;
    if (v === '' && !el.required && form.dataset.method === 'POST') continue;
    // `proofing.method` → { proofing: { method } }
    const path = el.name.split('.');
    let target = out;
    for (const key of path.slice(0, -1)) target = target[key] ??= {};
    target[path[path.length - 1]] = v;
  }
  for (const [name, values] of groups) out[name] = values;
  return out;
}

function clearErrors(form) {
  $$('[data-error-for]', form).forEach((el) => {
    el.textContent = '';
  });
  $$('.field.invalid', form).forEach((el) => el.classList.remove('invalid'));
  $$('[aria-invalid="true"]', form).forEach((el) => el.setAttribute('aria-invalid', 'false'));
}

/** Shows each issue of an `invalid_request`-style answer next to its field; true when any was placed. */
function showIssues(form, res) {
  const issues = res.body?.details?.issues || [];
  let placed = false;
  for (const issue of issues) {
    const path = Array.isArray(issue.path) ? issue.path.map(String) : [];
    // The most specific slot: `proofing.evidenceRef`, else `proofing`.
    let depth = path.length;
    while (depth > 0 && !$(`[data-error-for="${CSS.escape(path.slice(0, depth).join('.'))}"]`, form)) depth--;
    if (depth === 0) continue;
    const key = path.slice(0, depth).join('.');
    const slot = $(`[data-error-for="${CSS.escape(key)}"]`, form);
    const rest = path.slice(depth).join('.');
    slot.textContent = (slot.textContent ? `${slot.textContent} · ` : '') + (rest ? `${rest}: ` : '') + issue.message;
    const field = slot.closest('.field');
    if (field) field.classList.add('invalid');
    const input = $(`[name="${CSS.escape(key)}"]`, form);
    if (input) input.setAttribute('aria-invalid', 'true');
    placed = true;
  }
  return placed;
}

function after(el, res, fallbackDone) {
  if (res.status === 401) return; // request() already said the session ended
  if (res.status >= 200 && res.status < 300) {
    const done = el.dataset.done || fallbackDone;
    // `secret` (webhooks) or `clientSecret` (OAuth clients); a public OAuth client has none and just reloads.
    const secret = res.body && (res.body.secret ?? res.body.clientSecret);
    if (el.dataset.showSecret && typeof secret === 'string') {
      showSecretOnce(secret, done);
      return;
    }
    if (el.dataset.redirect) {
      location.assign(el.dataset.redirect);
      return;
    }
    sessionStorage.setItem('svc-console-notice', done);
    location.reload();
    return;
  }
  notice('error', describeError(res));
}

// A webhook signing secret is in the answer to create/rotate only: shown here once, then the page reloads without it.
function showSecretOnce(secret, done) {
  const box = $('#secret-reveal');
  if (!box) return location.reload();
  $('#secret-value').textContent = secret;
  box.classList.remove('hidden');
  box.scrollIntoView({ block: 'nearest' });
  const copy = $('#secret-copy');
  if (copy)
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(secret);
        notice('info', 'Copied to the clipboard.');
      } catch {
        notice('error', 'Copy failed: select the secret and copy it by hand.');
      }
    });
  $('#secret-done').addEventListener(
    'click',
    () => {
      sessionStorage.setItem('svc-console-notice', done);
      location.reload();
    },
    { once: true },
  );
}

document.addEventListener('submit', async (ev) => {
  const form = ev.target;
  if (!(form instanceof HTMLFormElement) || !form.dataset.api) return;
  ev.preventDefault();
  clearErrors(form);
  let payload;
  try {
    payload = formBody(form, form.dataset.changedOnly === 'true');
  } catch (e) {
    const slot = e.field && $(`[data-error-for="${CSS.escape(e.field)}"]`, form);
    if (slot) slot.textContent = e.message;
    notice('error', 'Fix the highlighted field.');
    return;
  }
  if (form.dataset.changedOnly === 'true' && Object.keys(payload).length === 0) {
    notice('info', 'Nothing changed.');
    return;
  }
  if (form.dataset.confirm && !(await confirmAction(form.dataset.confirm))) return;
  const button = $('button[type="submit"], button:not([type])', form);
  if (button) button.disabled = true;
  const res = await request(form.dataset.method || 'POST', form.dataset.api, payload);
  if (button) button.disabled = false;
  if (res.status === 401 || (res.status >= 200 && res.status < 300)) return after(form, res, 'Saved');
  const placed = showIssues(form, res);
  notice(
    'error',
    placed ? `Not saved: ${describeError(res)}. See the highlighted fields.` : `Not saved: ${describeError(res)}`,
  );
});

document.addEventListener('reset', (ev) => {
  if (ev.target instanceof HTMLFormElement) clearErrors(ev.target);
});

// Sign out: the adapter's logout (DELETE, same origin, the cookies), then back to the app.
// The app's page is where a signed-out visitor belongs, whatever the logout answered.
const signOut = $('#sign-out');
if (signOut) {
  signOut.addEventListener('click', async () => {
    const button = signOut;
    button.disabled = true;
    try {
      await fetch(button.dataset.signOut, {
        method: 'DELETE',
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
      });
    } catch {
      // Offline: the cookies stay; the app's page says what it sees.
    }
    location.assign(button.dataset.after || '/');
  });
}

document.addEventListener('click', async (ev) => {
  const button = ev.target instanceof Element ? ev.target.closest('button[data-api]') : null;
  if (!button) return;
  if (button.dataset.confirm || button.dataset.typeToConfirm) {
    if (!(await confirmAction(button.dataset.confirm || 'Are you sure?', button.dataset.typeToConfirm))) return;
  }
  button.disabled = true;
  const res = await request(
    button.dataset.method || 'POST',
    button.dataset.api,
    button.dataset.body ? JSON.parse(button.dataset.body) : undefined,
  );
  button.disabled = false;
  after(button, res, 'Done');
});

// Remember each field's initial value, so "changed only" forms send just the edits.
for (const el of $$('form[data-changed-only] [name]')) {
  try {
    el.dataset.initial = JSON.stringify(fieldValue(el));
  } catch {
    el.dataset.initial = '';
  }
}

const pending = sessionStorage.getItem('svc-console-notice');
if (pending) {
  sessionStorage.removeItem('svc-console-notice');
  notice('ok', pending);
}

// ---- Charts (uPlot, loaded on the health page only).
const COLORS = ['#2f5bd3', '#1f9d6b', '#d9822b', '#b03ab7', '#c2372f', '#5d6778'];
const chartData = $('#chart-data');
if (chartData && window.uPlot) {
  const charts = JSON.parse(chartData.textContent || '[]');
  const made = [];
  for (const chart of charts) {
    const el = document.getElementById(chart.id);
    if (!el) continue;
    const opts = {
      width: Math.max(280, el.clientWidth),
      height: 240,
      legend: { live: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.15))] } },
      axes: [
        { stroke: '#5d6778', grid: { stroke: '#eef0f3' } },
        { stroke: '#5d6778', grid: { stroke: '#eef0f3' }, size: 44 },
      ],
      series: [
        { label: chart.interval === 'day' ? 'Day' : 'Hour' },
        ...chart.series.map((s, i) => ({
          label: s.label,
          stroke: COLORS[i % COLORS.length],
          width: 2,
          fill: `${COLORS[i % COLORS.length]}14`,
          points: { show: chart.x.length <= 31 },
        })),
      ],
    };
    made.push({ el, plot: new window.uPlot(opts, [chart.x, ...chart.series.map((s) => s.values)], el) });
  }
  addEventListener('resize', () =>
    made.forEach(({ el, plot }) => plot.setSize({ width: Math.max(280, el.clientWidth), height: 240 })),
  );
  document.documentElement.dataset.chartsReady = String(made.length);
}
