/**
 * What every page of the authorization server shares: one inline style sheet
 * (allowed by its hash, nothing else is), the headers that forbid framing and
 * everything the pages do not use, HTML escaping (hostile text shown inert),
 * and the error page.
 */
import { createHash } from 'node:crypto';
import { inertText } from '../../base/inert-text.ts';
import type { OAuthReply } from './oauth-reply.ts';

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1d21}
main{max-width:28rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:.75rem;box-shadow:0 1px 4px #0002}
@media (max-width:32rem){main{margin:1rem;padding:1.25rem}}
h1{font-size:1.35rem;margin:0 0 1rem}
.client{font-weight:600}
.host{font-family:ui-monospace,monospace;background:#eef0f3;padding:0 .3rem;border-radius:.25rem}
ul{padding-left:1.2rem}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #8a9099;border-radius:.4rem;font:inherit}
fieldset{border:1px solid #dde0e5;border-radius:.4rem;margin:1rem 0;padding:.4rem .8rem .6rem}
legend{font-weight:600;padding:0 .3rem}
label.scope{display:flex;gap:.6rem;align-items:flex-start;font-weight:400;margin:.6rem 0}
label.scope input{width:1.1rem;height:1.1rem;flex:none;margin:.2rem 0 0;padding:0}
label.destructive{border-left:4px solid #b91c1c;padding-left:.5rem}
.mark{font-weight:700;color:#991b1b}
.reach{display:block;font-size:.9rem;color:#14532d}
.actions{display:flex;gap:.75rem;margin-top:1.4rem}
button{flex:1;padding:.65rem;border-radius:.4rem;font:inherit;font-weight:600;cursor:pointer;border:2px solid #1d4ed8}
button[value=approve],button.primary{background:#1d4ed8;color:#fff}
button[value=deny]{background:#fff;color:#1d4ed8}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.error{background:#fde8e8;border:1px solid #c81e1e;color:#7f1d1d;padding:.6rem;border-radius:.4rem}
.note{color:#555;font-size:.9rem}
.notice{background:#e7f5ea;border:1px solid #1f7a3a;color:#14532d;padding:.6rem;border-radius:.4rem}
.apps{list-style:none;padding:0}
.apps>li{border-top:1px solid #dde0e5;padding:.8rem 0}
.apps form{margin:.5rem 0 0}
.idp{display:flex;flex-direction:column;gap:.6rem;margin:1rem 0}
.idp button{background:#fff;color:#1d4ed8}
.or{text-align:center;color:#555;font-size:.9rem;margin:.8rem 0 0}
.apps button,.signout button{flex:none;padding:.4rem .9rem;background:#fff;color:#1d4ed8}
`;
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * Text for a page: markup escaped, and what a client, a server or a provider
 * document wrote shown inert as on the terminal (a bidirectional override in
 * a client's name is shown as `\u202e`, not obeyed).
 */
export function escapeHtml(text: string): string {
  return inertText(text, { lines: true }).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The headers every page of the authorization server carries; `formAction` names where its form may go. */
export function pageHeaders(formActions: readonly string[] = []): Record<string, string> {
  const csp = [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    "img-src 'none'",
    // A form's redirect counts as its action in Chromium: the client's origin too.
    `form-action 'self'${formActions.map((origin) => ` ${origin}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': csp,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    // `same-origin`, not `no-referrer`: under `no-referrer` a browser sends
    // `Origin: null` with the page's own form POST, which the forms' origin
    // check must refuse; another site still gets no referrer.
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  };
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Portcullis</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body>
</html>
`;
}

/** A member's name and password fields, the name kept from an earlier try (never the password). */
export function signInFields(member: string | undefined): string {
  return `<label for="member">Member name</label>
<input id="member" name="member" autocomplete="username" required autofocus value="${escapeHtml(member ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>`;
}

/** A page that says why the request cannot go on; never a redirect (no open redirect). */
export function problemPage(status: number, title: string, text: string): OAuthReply {
  return {
    status,
    headers: pageHeaders(),
    body: page(
      title,
      `<h1>${escapeHtml(title)}</h1>\n<p class="error" role="alert">${escapeHtml(text)}</p>\n<p class="note">Go back to the app you came from and connect again.</p>`,
    ),
  };
}
