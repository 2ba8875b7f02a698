/**
 * The pages a person sees while signing Portcullis in to a remote MCP
 * server: the one before the authorization server, which names the host
 * they are being sent to and keeps the "unverified server" label of a
 * server no curated definition vouches for; the callback's, which says
 * what happened; and the problem page when a link or a reply is refused.
 * The same style sheet and headers as the authorization server's pages.
 */
import { GatewayError, publicError } from '../errors.ts';
import { escapeHtml, page, pageHeaders, problemPage } from '../oauth-server/html-page.ts';
import type { OAuthReply } from '../oauth-server/oauth-reply.ts';
import type { OperatorContext } from '../operator/context.ts';
import { completeSignIn, type SignInOutcome, signInOrThrow } from '../operator/remote-sign-in.ts';
import { SIGN_IN_COOKIE, SIGN_IN_PAGE_PATH } from './upstream-sign-in.ts';

const COOKIE_PATH = '/connect/oauth';

/** `GET /connect/oauth/sign-in?state=…`: names the host, binds this browser, links on. */
export async function signInLinkPage(
  ctx: OperatorContext,
  query: URLSearchParams,
  cookies: Record<string, string>,
): Promise<OAuthReply> {
  const flow = signInOrThrow(ctx);
  try {
    const state = query.get('state') ?? '';
    const opened = await flow.openLink(state, cookies[SIGN_IN_COOKIE]);
    const { signIn } = opened;
    const connection = await ctx.store.connections.byId(signIn.workspaceId, signIn.connectionId);
    const endpoint = await ctx.store.remoteEndpoints.byConnection(signIn.connectionId);
    const serverHost = endpoint ? new URL(endpoint.url).host : '';
    const headers: OAuthReply['headers'] = { ...pageHeaders() };
    if (opened.setCookie)
      headers['Set-Cookie'] =
        `${SIGN_IN_COOKIE}=${opened.setCookie}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Lax; Max-Age=600${
          flow.redirectUri.startsWith('https:') ? '; Secure' : ''
        }`;
    const body = `<h1>Sign in to ${escapeHtml(connection?.name ?? 'a connection')}</h1>
<p>You are being sent to <span class="host">${escapeHtml(signIn.host)}</span> to sign in${
      signIn.agentId ? ' with your own account' : ''
    }.</p>
<p class="error" role="note">Unverified server: <span class="host">${escapeHtml(serverHost)}</span>. No curated definition vouches for it; continue only if you expected to sign in there.</p>
<p class="actions"><a id="continue" href="${escapeHtml(opened.authorizationUrl)}">Continue to ${escapeHtml(signIn.host)}</a></p>`;
    return { status: 200, headers, body: page('Sign in', body) };
  } catch (error) {
    return refusedPage(error);
  }
}

/** `GET /connect/oauth/callback`: what happened, in plain words. */
export async function callbackPage(
  ctx: OperatorContext,
  query: URLSearchParams,
  cookies: Record<string, string>,
): Promise<OAuthReply> {
  let outcome: SignInOutcome;
  try {
    outcome = await completeSignIn(ctx, query, cookies[SIGN_IN_COOKIE]);
  } catch (error) {
    return refusedPage(error);
  }
  const tools = outcome.connected?.tools?.tools.length;
  const body = `<h1>Connected</h1>
<p class="notice" role="status">Signed in to <span class="host">${escapeHtml(outcome.host)}</span>${
    outcome.agent ? ` for agent ${escapeHtml(outcome.agent)}` : ''
  }: the connection <b>${escapeHtml(outcome.connection)}</b> is ready.</p>
${
  tools === undefined
    ? ''
    : `<p>${tools} tools were discovered; every one is quarantined until an operator reviews it (portcullis actions ${escapeHtml(outcome.connection)}).</p>`
}<p class="note">You can close this page.</p>`;
  return {
    status: 200,
    headers: {
      ...pageHeaders(),
      // The binding cookie has done its work.
      'Set-Cookie': `${SIGN_IN_COOKIE}=; Path=${COOKIE_PATH}; HttpOnly; SameSite=Lax; Max-Age=0`,
    },
    body: page('Connected', body),
  };
}

function refusedPage(error: unknown): OAuthReply {
  if (!(error instanceof GatewayError)) throw error;
  const shown = publicError(error);
  return problemPage(error.status, 'Sign-in refused', `${shown.message} (${shown.code})`);
}

export { SIGN_IN_PAGE_PATH };
