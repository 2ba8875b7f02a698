/**
 * The sign-in and consent page, rendered on the server: no script, no
 * external asset, one form that works without JavaScript and by keyboard
 * alone (labels, a visible focus, Approve first so Enter approves, Deny
 * without the password). Its headers forbid framing (`frame-ancestors
 * 'none'`) and everything the page does not use; the only style is the
 * inline sheet below, allowed by its hash.
 */
import { createHash } from 'node:crypto';
import type { OAuthReply } from './oauth-reply.ts';
import { describeScope } from './scopes.ts';

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1d21}
main{max-width:28rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:.75rem;box-shadow:0 1px 4px #0002}
h1{font-size:1.35rem;margin:0 0 1rem}
.client{font-weight:600}
.host{font-family:ui-monospace,monospace;background:#eef0f3;padding:0 .3rem;border-radius:.25rem}
ul{padding-left:1.2rem}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #8a9099;border-radius:.4rem;font:inherit}
.actions{display:flex;gap:.75rem;margin-top:1.4rem}
button{flex:1;padding:.65rem;border-radius:.4rem;font:inherit;font-weight:600;cursor:pointer;border:2px solid #1d4ed8}
button[value=approve]{background:#1d4ed8;color:#fff}
button[value=deny]{background:#fff;color:#1d4ed8}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.error{background:#fde8e8;border:1px solid #c81e1e;color:#7f1d1d;padding:.6rem;border-radius:.4rem}
.note{color:#555;font-size:.9rem}
`;
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

export interface ConsentView {
  requestId: string;
  csrf: string;
  clientName: string;
  /** How the client identified itself, in words. */
  clientKind: 'registered' | 'metadata_document';
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  /** What the person typed before, when the page comes back after a failed sign-in. */
  member?: string;
  error?: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
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
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  };
}

function page(title: string, body: string): string {
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

export function consentPage(view: ConsentView, status = 200): OAuthReply {
  const host = new URL(view.redirectUri).host;
  const identified =
    view.clientKind === 'metadata_document'
      ? `identified by its metadata document at <span class="host">${escapeHtml(view.clientId)}</span>`
      : 'registered with this gateway';
  const error = view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : '';
  const scopes = view.scopes
    .map(
      (scope) =>
        `<li>${escapeHtml(describeScope(scope))} <span class="host">${escapeHtml(scope)}</span></li>`,
    )
    .join('\n');
  const body = `<h1>Connect <span class="client">${escapeHtml(view.clientName)}</span> to Portcullis</h1>
${error}
<p><span class="client">${escapeHtml(view.clientName)}</span> (${identified}) asks to act for you with these permissions. You will be sent back to <span class="host">${escapeHtml(host)}</span>.</p>
<ul>
${scopes}
</ul>
<p class="note">It can only use the tools an operator has granted you, whatever it asks for.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="request" value="${escapeHtml(view.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<label for="member">Member name</label>
<input id="member" name="member" autocomplete="username" required autofocus value="${escapeHtml(view.member ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>`;
  return {
    status,
    headers: pageHeaders([new URL(view.redirectUri).origin]),
    body: page(`Connect ${view.clientName}`, body),
  };
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

/** The page `resource_documentation` names: what the endpoint is and how a client connects to it. */
export function documentationPage(resource: string, scopes: readonly string[]): OAuthReply {
  const items = scopes
    .map(
      (scope) =>
        `<li><span class="host">${escapeHtml(scope)}</span>: ${escapeHtml(describeScope(scope))}</li>`,
    )
    .join('\n');
  const body = `<h1>Portcullis MCP endpoint</h1>
<p>Point an MCP client (ChatGPT, Claude, Codex, MCP Inspector, mcp-remote) at <span class="host">${escapeHtml(resource)}</span>. It signs in with OAuth 2.1: a member of this gateway approves it on a consent page, and it gets tokens for this endpoint only.</p>
<p>The scopes follow what a tool does:</p>
<ul>
${items}
</ul>
<p class="note">A token only ever narrows what an operator granted the member's agent for that client. Ask the operator of this gateway for a member account and for grants.</p>`;
  return { status: 200, headers: pageHeaders(), body: page('MCP endpoint', body) };
}
