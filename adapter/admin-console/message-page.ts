/** The console's own 401/403/5xx page (no session, so no sidebar). */
import { html, type Html } from './html.js';

const TEXT: Record<number, [string, string]> = {
  401: ['Sign in required', 'Sign in with an administrator account to use the console.'],
  403: ['Administrators only', 'Your account does not have the admin:read role.'],
};

export function messagePage(title: string, base: string, status: number): Html {
  const [heading, text] = TEXT[status] ?? [
    'The console is unavailable',
    'The auth service did not answer. Try again in a moment.',
  ];
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${heading} · ${title}</title><link rel="stylesheet" href="${base}/assets/console.css"></head>
<body class="message"><main id="main"><section class="card"><h1>${heading}</h1><p>${text}</p><p><a href="/">Go to the home page</a></p></section></main></body></html>`;
}
