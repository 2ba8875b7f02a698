/**
 * The pages of `/oauth/consents`, where a member sees the apps they let act
 * for them and takes that back: a sign-in form, then the list with one
 * Revoke button per app. Server-rendered like the consent page: no script,
 * forms that work by keyboard alone, every form carrying its CSRF token.
 */

import type { Consent } from '../../model/oauth.ts';
import { describeScope } from '../principals/scopes.ts';
import { escapeHtml, page, pageHeaders, signInFields } from './html-page.ts';
import type { OAuthReply } from './oauth-reply.ts';

export const MEMBER_CONSENTS_PATH = '/oauth/consents';

export interface SignInView {
  csrf: string;
  member?: string;
  error?: string;
  notice?: string;
}

export function signInPage(view: SignInView, status = 200): OAuthReply {
  const body = `<h1>Apps you connected</h1>
${banner(view)}
<p>Sign in to see the apps that act for you through this gateway, and to revoke any of them.</p>
<form method="post" action="${MEMBER_CONSENTS_PATH}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
${signInFields(view.member)}
<div class="actions">
<button type="submit" name="action" value="sign-in">Sign in</button>
</div>
</form>`;
  return { status, headers: pageHeaders(), body: page('Apps you connected', body) };
}

export interface ConsentListView {
  csrf: string;
  memberName: string;
  consents: readonly Consent[];
  error?: string;
  notice?: string;
}

export function consentListPage(view: ConsentListView, status = 200): OAuthReply {
  const items = view.consents.map((consent) => consentItem(consent, view.csrf)).join('\n');
  const list =
    view.consents.length === 0
      ? '<p>No app acts for you now.</p>'
      : `<ul class="apps">\n${items}\n</ul>`;
  const body = `<h1>Apps that act for ${escapeHtml(view.memberName)}</h1>
${banner(view)}
${list}
<p class="note">Revoking an app stops its tokens on their next request. It can ask again, and you decide again.</p>
<form class="signout" method="post" action="${MEMBER_CONSENTS_PATH}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<button type="submit" name="action" value="sign-out">Sign out</button>
</form>`;
  return { status, headers: pageHeaders(), body: page('Apps you connected', body) };
}

function consentItem(consent: Consent, csrf: string): string {
  const scopes = consent.scopes
    .map((scope) => `<li>${escapeHtml(describeScope(scope))}</li>`)
    .join('');
  const identified = consent.clientId.startsWith('https:')
    ? ` <span class="host">${escapeHtml(new URL(consent.clientId).host)}</span>`
    : '';
  return `<li><span class="client">${escapeHtml(consent.clientName)}</span>${identified}
<span class="note">since ${escapeHtml(consent.createdAt.slice(0, 10))}</span>
<ul>${scopes}</ul>
<form method="post" action="${MEMBER_CONSENTS_PATH}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<input type="hidden" name="consent" value="${escapeHtml(consent.id)}">
<button type="submit" name="action" value="revoke" aria-label="Revoke ${escapeHtml(consent.clientName)}">Revoke</button>
</form></li>`;
}

function banner(view: { error?: string; notice?: string }): string {
  if (view.error) return `<p class="error" role="alert">${escapeHtml(view.error)}</p>`;
  if (view.notice) return `<p class="notice" role="status">${escapeHtml(view.notice)}</p>`;
  return '';
}
