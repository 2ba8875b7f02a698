/**
 * The sign-in and consent page, rendered on the server: no script, no
 * external asset, one form that works without JavaScript and by keyboard
 * alone (labels, a visible focus; Continue signs in and shows what the client
 * will reach, then Approve, each first so Enter takes it; Deny
 * without the password). Its frame, style and headers are html-page.ts's.
 */

import { classOf, describeScope, inClassOrder } from '../principals/scopes.ts';
import { escapeHtml, page, pageHeaders, signInFields } from './html-page.ts';
import type { MemberReach } from './member-reach.ts';
import type { OAuthReply } from './oauth-reply.ts';
import type { StepUpChoice } from './step-up-form.ts';

export interface ConsentView {
  /** The sealed authorization request (consent-request.ts). */
  request: string;
  csrf: string;
  clientName: string;
  /** How the client identified itself, in words. */
  clientKind: 'registered' | 'metadata_document';
  clientId: string;
  redirectUri: string;
  /** The gateway's public host (its issuer's): whom the person signs in to. */
  gateway: string;
  /** What the client asked for: each a checkbox, checked unless `chosen` leaves it out. */
  scopes: readonly string[];
  /** What the person left checked when the page comes back; undefined: everything asked. */
  chosen?: readonly string[] | undefined;
  /**
   * The review step, once the member signed in: what the client will reach
   * with each scope, and whether the member has grants at all.
   */
  review?: { member: string; reach: MemberReach; stepUp?: StepUpChoice };
  /** What the person typed before, when the page comes back after a failed sign-in. */
  member?: string;
  error?: string;
}

export function consentPage(view: ConsentView, status = 200): OAuthReply {
  const host = new URL(view.redirectUri).host;
  const name = `<span class="client">${escapeHtml(view.clientName)}</span>`;
  // A metadata document's client_id is its URL: its host is who published the name.
  const published =
    view.clientKind === 'metadata_document'
      ? `<li>Identified by its metadata document on <span class="host">${escapeHtml(hostOf(view.clientId))}</span></li>\n`
      : '';
  const error = view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : '';
  const scopes = scopeChoices(view.scopes, view.chosen, view.review?.reach);
  const { review } = view;
  const signedIn =
    review === undefined
      ? signInFields(view.member)
      : `<p>Signed in as <b id="signed-in">${escapeHtml(review.member)}</b>.</p>${
          review.reach.hasGrants
            ? ''
            : `\n<p class="error" role="note" id="no-grants">You have no grants yet: ${name} will see no tools until an operator grants you connections (portcullis grant --member ${escapeHtml(review.member)} &lt;connection&gt;).</p>`
        }`;
  const stepUp = review?.stepUp === undefined ? '' : `\n${stepUpNote(name, review.stepUp)}`;
  // Signing in first shows what the client will reach; Approve comes after.
  const primary =
    review === undefined
      ? '<button type="submit" name="decision" value="review" class="primary">Continue</button>'
      : '<button type="submit" name="decision" value="approve">Approve</button>';
  const body = `<h1>Connect ${name} to Portcullis</h1>
${error}
<p>You are signing in to the Portcullis gateway at <span class="host" id="gateway">${escapeHtml(view.gateway)}</span>. An app that calls itself ${name} asks to act for you: that name is the app's own, not checked by this gateway.</p>
<ul class="about">
${published}<li>Sends you back to <span class="host" id="redirect-host">${escapeHtml(host)}</span></li>
</ul>
<form method="post" action="/oauth/authorize">
${scopes}
<p class="note">It can only use the tools an operator has granted you, whatever it asks for.</p>${stepUp}
<input type="hidden" name="request" value="${escapeHtml(view.request)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
${signedIn}
<div class="actions">
${primary}
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>`;
  return {
    status,
    headers: pageHeaders([new URL(view.redirectUri).origin]),
    body: page(`Connect ${view.clientName}`, body),
  };
}

/** "It will reach read tools on 3 connections", or that it reaches none. */
export function reachWords(scope: string, reach: MemberReach): string {
  const kind = classOf(scope) ?? 'read';
  const names = reach.byScope.get(scope) ?? [];
  if (names.length === 0) return `It will reach no ${kind} tools: none are granted to you.`;
  const where = names.length === 1 ? `1 connection (${names[0]})` : `${names.length} connections`;
  return escapeHtml(`It will reach ${kind} tools on ${where}.`);
}

/** A URL's host, or the text itself when it is none. */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}

/**
 * One checkbox per permission asked, reads first and destructive last and
 * marked: the person may approve fewer than the client asked for.
 */
function scopeChoices(
  asked: readonly string[],
  chosen: readonly string[] | undefined,
  reach: MemberReach | undefined,
): string {
  const boxes = inClassOrder(asked).map((scope) => {
    const checked = chosen === undefined || chosen.includes(scope) ? ' checked' : '';
    const destructive = classOf(scope) === 'destructive';
    const mark = destructive ? '<span class="mark">Destructive</span> ' : '';
    const reached =
      reach === undefined ? '' : ` <span class="reach">${reachWords(scope, reach)}</span>`;
    return `<label class="scope${destructive ? ' destructive' : ''}"><input type="checkbox" name="scope" value="${escapeHtml(scope)}"${checked}><span>${mark}${escapeHtml(describeScope(scope))} <span class="host">${escapeHtml(scope)}</span>${reached}</span></label>`;
  });
  return `<fieldset class="scopes">
<legend>Permissions it asks for (approve all, or fewer)</legend>
${boxes.join('\n')}
</fieldset>`;
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

const STEP_UP_FORM_WORDS = {
  http: 'an HTTP 403 with a WWW-Authenticate challenge (what MCP clients such as the SDKs read)',
  result: 'a tool result carrying the challenge (what ChatGPT reads)',
} as const;
const STEP_UP_WHY_WORDS = {
  chosen: 'as an operator chose for this app',
  chatgpt: 'by default, since it sends you back to ChatGPT',
  default: "this gateway's default",
} as const;

/** How the app is told it needs a permission not given here, so it can ask again. */
function stepUpNote(name: string, stepUp: StepUpChoice): string {
  return `<p class="note" id="step-up">When ${name} needs a permission you leave out, the gateway tells it with ${escapeHtml(STEP_UP_FORM_WORDS[stepUp.form])}, ${escapeHtml(STEP_UP_WHY_WORDS[stepUp.why])}; it may then ask you again.</p>`;
}
