/**
 * The pages a person sees while signing Portcullis in to a remote MCP
 * server: the one before the authorization server, which names what the
 * sign-in connects (the workspace, the connection, and for a personal
 * credential the agent) and the host they are being sent to, keeping the
 * "unverified server" label of a server no curated definition vouches for;
 * the callback's, which says what happened; and the problem page when a
 * link or a reply is refused. The same style sheet and headers as the
 * authorization server's pages.
 *
 * A personal sign-in an agent of a member started (an agent a consent made)
 * is that member's only: its page asks for the member's session (signing
 * in on the page if there is none, as `/oauth/consents` does) and refuses
 * another member's with `oauth_sign_in_wrong_member`, binding nothing, so
 * no one links their own account to an agent by sending its link to
 * someone else. Every other sign-in is bound to the browser that opens it.
 */
import { randomBytes } from 'node:crypto';
import { GatewayError, publicError } from '../base/errors.ts';
import { urlUnder } from '../identity/oauth-client/client-metadata.ts';
import {
  isOpenedElsewhere,
  SIGN_IN_COOKIE,
  SIGN_IN_PAGE_PATH,
} from '../identity/oauth-client/upstream-sign-in.ts';
import {
  escapeHtml,
  page,
  pageHeaders,
  problemPage,
  signInFields,
} from '../identity/oauth-server/html-page.ts';
import type { MemberSignIns } from '../identity/oauth-server/member-sign-ins.ts';
import { appendCookie, type OAuthReply } from '../identity/oauth-server/oauth-reply.ts';
import { sameSecret } from '../identity/oauth-server/same-secret.ts';
import { SIGN_IN_REFUSED } from '../identity/oauth-server/sign-in.ts';
import type { Member } from '../model/oauth.ts';
import type { StoredSignIn } from '../model/sign-in.ts';
import { CONSOLE_PATH } from './console-access.ts';
import { MEMBER_ACTOR, type OperatorContext } from './context.ts';
import { completeSignIn, type SignInOutcome, signInOrThrow } from './remote-sign-in.ts';

const COOKIE_PATH = '/connect/oauth';
/** The console's page a sign-in started there returns to (the connection's name follows). */
const CONSOLE_CONNECT_OWN = `${CONSOLE_PATH}/#/connect/own/`;
/** The member's session on these pages (its own path: `/oauth/consents` keeps its own). */
const MEMBER_COOKIE = 'portcullis_member';
/** The member sign-in form's CSRF token. */
const MEMBER_CSRF_COOKIE = 'portcullis_member_csrf';
const MEMBER_COOKIE_MAX_AGE = 600;

type Cookies = Readonly<Record<string, string>>;

export interface SignInLinkForm {
  state?: string | undefined;
  csrf?: string | undefined;
  member?: string | undefined;
  password?: string | undefined;
}

/** What a sign-in connects, as its page names it. */
interface SignInAbout {
  workspace: string;
  connection: string;
  /** For a personal credential: the agent it is for. */
  agent?: string;
  /** The agent's member, when a consent made the agent: only they may open the link. */
  member?: Member;
  /** The remote MCP server's host (the unverified label). */
  serverHost: string;
  /** Whether an operator started it from the command line (`portcullis connection sign-in`). */
  fromCli: boolean;
}

/**
 * `GET /connect/oauth/sign-in?state=…`: names what it connects and the host,
 * asks a member's link for that member's session, binds this browser, links on.
 */
export async function signInLinkPage(
  ctx: OperatorContext,
  members: MemberSignIns,
  query: URLSearchParams,
  cookies: Cookies,
): Promise<OAuthReply> {
  try {
    const state = query.get('state') ?? '';
    const about = await aboutSignIn(ctx, members, await signInOrThrow(ctx).pending(state));
    if (about.member) {
      const member = await members.sessionMember(cookies[MEMBER_COOKIE]);
      if (!member) return memberSignInForm(members, about, state, {});
      refuseOtherMember(about.member, member);
    }
    return await continuePage(ctx, about, state, cookies);
  } catch (error) {
    return refusedPage(error);
  }
}

/** `POST /connect/oauth/sign-in`: the member of a member's link signs in, then the page goes on. */
export async function signInLinkMemberForm(
  ctx: OperatorContext,
  members: MemberSignIns,
  form: SignInLinkForm,
  cookies: Cookies,
  address: string,
): Promise<OAuthReply> {
  try {
    const state = form.state ?? '';
    const about = await aboutSignIn(ctx, members, await signInOrThrow(ctx).pending(state));
    if (!about.member) return await continuePage(ctx, about, state, cookies);
    const typed = (form.member ?? '').slice(0, 100);
    if (!sameSecret(form.csrf ?? '', cookies[MEMBER_CSRF_COOKIE] ?? ''))
      return memberSignInForm(
        members,
        about,
        state,
        { member: typed, error: 'The form did not come from this page. Try again.' },
        403,
      );
    const signedIn = await members.signIn(form.member, form.password, address);
    if ('refused' in signedIn) {
      const { status, text } = SIGN_IN_REFUSED[signedIn.refused];
      return memberSignInForm(members, about, state, { member: typed, error: text }, status);
    }
    const session = `${MEMBER_COOKIE}=${signedIn.sessionId}; ${memberCookieAttributes(members, MEMBER_COOKIE_MAX_AGE, 'Lax')}`;
    let reply: OAuthReply;
    try {
      refuseOtherMember(about.member, signedIn.member);
      reply = await continuePage(ctx, about, state, cookies);
    } catch (error) {
      reply = refusedPage(error);
    }
    appendCookie(reply, session);
    return reply;
  } catch (error) {
    return refusedPage(error);
  }
}

async function aboutSignIn(
  ctx: OperatorContext,
  members: MemberSignIns,
  signIn: StoredSignIn,
): Promise<SignInAbout> {
  const [workspace, connection, endpoint, agent] = await Promise.all([
    ctx.store.workspaces.byId(signIn.workspaceId),
    ctx.store.connections.byId(signIn.workspaceId, signIn.connectionId),
    ctx.store.remoteEndpoints.byConnection(signIn.connectionId),
    signIn.agentId === null ? undefined : ctx.store.agents.byId(signIn.workspaceId, signIn.agentId),
  ]);
  // An operator's sign-in (the CLI, the admin API) stays bound to the browser alone.
  const member =
    signIn.agentId !== null && signIn.actor === `agent:${signIn.agentId}`
      ? await members.memberOfAgent(signIn.workspaceId, signIn.agentId)
      : undefined;
  return {
    workspace: workspace?.name ?? signIn.workspaceId,
    connection: connection?.name ?? 'a connection',
    ...(signIn.agentId === null ? {} : { agent: agent?.name ?? signIn.agentId }),
    ...(member ? { member } : {}),
    serverHost: endpoint ? new URL(endpoint.url).host : '',
    fromCli: signIn.actor === 'cli',
  };
}

function refuseOtherMember(owner: Member, member: Member): void {
  if (member.id !== owner.id)
    throw new GatewayError(
      'oauth_sign_in_wrong_member',
      `this sign-in link is for the agent of another member; sign in as that member to open it`,
      { field: 'state' },
    );
}

/** The page that binds this browser and links on to the authorization server. */
async function continuePage(
  ctx: OperatorContext,
  about: SignInAbout,
  state: string,
  cookies: Cookies,
): Promise<OAuthReply> {
  const flow = signInOrThrow(ctx);
  let opened: Awaited<ReturnType<typeof flow.openLink>>;
  try {
    opened = await flow.openLink(state, cookies[SIGN_IN_COOKIE]);
  } catch (error) {
    // A link is bound to the first browser that opens it: the operator who started it makes another.
    if (isOpenedElsewhere(error) && about.fromCli)
      throw new GatewayError(
        'oauth_state_invalid',
        `this sign-in link was opened in another browser first; run portcullis connection sign-in ${about.connection} again and open the new link in one browser`,
        { field: 'state' },
      );
    throw error;
  }
  const { signIn } = opened;
  // A button, not a link: a GET form to the authorization server, its query as hidden fields.
  const target = new URL(opened.authorizationUrl);
  const headers: OAuthReply['headers'] = { ...pageHeaders([target.origin]) };
  if (opened.setCookie)
    headers['Set-Cookie'] =
      `${SIGN_IN_COOKIE}=${opened.setCookie}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Lax; Max-Age=600${
        flow.redirectUri.startsWith('https:') ? '; Secure' : ''
      }`;
  const body = `<h1>Sign in to ${escapeHtml(about.connection)}</h1>
${whatItConnects(about)}
<p>You are being sent to <span class="host">${escapeHtml(signIn.host)}</span> to sign in${
    signIn.agentId ? ' with your own account' : ''
  }.</p>
<p class="error" role="note">Unverified server: <span class="host">${escapeHtml(about.serverHost)}</span>. No curated definition vouches for it; continue only if you expected to sign in there.</p>
<form method="get" action="${escapeHtml(`${target.origin}${target.pathname}`)}">
${[...target.searchParams]
  .map(
    ([name, value]) =>
      `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
  )
  .join('\n')}
<div class="actions"><button type="submit" id="continue" class="primary">Continue to ${escapeHtml(signIn.host)}</button></div>
</form>`;
  return { status: 200, headers, body: page('Sign in', body) };
}

/** The member sign-in a member's link asks for first, with a new CSRF token in its field and cookie. */
function memberSignInForm(
  members: MemberSignIns,
  about: SignInAbout,
  state: string,
  view: { member?: string; error?: string },
  status = 200,
): OAuthReply {
  const csrf = randomBytes(32).toString('base64url');
  const body = `<h1>Sign in to ${escapeHtml(about.connection)}</h1>
${whatItConnects(about)}
${view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : ''}
<p>This link is for an agent of a member of this gateway. Sign in as that member first.</p>
<form method="post" action="${SIGN_IN_PAGE_PATH}">
<input type="hidden" name="state" value="${escapeHtml(state)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
${signInFields(view.member)}
<div class="actions">
<button type="submit" name="action" value="sign-in">Sign in</button>
</div>
</form>`;
  const reply: OAuthReply = { status, headers: pageHeaders(), body: page('Sign in', body) };
  appendCookie(
    reply,
    `${MEMBER_CSRF_COOKIE}=${csrf}; ${memberCookieAttributes(members, MEMBER_COOKIE_MAX_AGE, 'Strict')}`,
  );
  return reply;
}

/** The workspace, the connection and (personal) the agent the sign-in connects. */
function whatItConnects(about: SignInAbout): string {
  const items = [
    `<li>Workspace: <b id="workspace">${escapeHtml(about.workspace)}</b></li>`,
    `<li>Connection: <b id="connection">${escapeHtml(about.connection)}</b></li>`,
    about.agent === undefined
      ? '<li>For: everyone granted this connection (its shared sign-in)</li>'
      : `<li>For agent: <b id="agent">${escapeHtml(about.agent)}</b>${
          about.member ? ` of member <b id="member">${escapeHtml(about.member.name)}</b>` : ''
        }</li>`,
  ];
  return `<ul class="connects">\n${items.join('\n')}\n</ul>`;
}

function memberCookieAttributes(
  members: MemberSignIns,
  maxAge: number,
  sameSite: 'Lax' | 'Strict',
): string {
  return `Path=${COOKIE_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=${sameSite}${
    members.secureCookies ? '; Secure' : ''
  }`;
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
  const cleared = `${SIGN_IN_COOKIE}=; Path=${COOKIE_PATH}; HttpOnly; SameSite=Lax; Max-Age=0`;
  // Started from the console: back to it, at the step the connection is now at (its tools to review).
  if (outcome.startedBy.startsWith(MEMBER_ACTOR) && outcome.agent === undefined)
    return {
      status: 303,
      headers: {
        ...pageHeaders(),
        Location: `${urlUnder(new URL(signInOrThrow(ctx).options.baseUrl), CONSOLE_CONNECT_OWN)}${encodeURIComponent(outcome.connection)}`,
        'Set-Cookie': cleared,
      },
      body: '',
    };
  const tools = outcome.connected?.tools?.tools.length;
  const body = `<h1>Connected</h1>
<p class="notice" role="status">Signed in to <span class="host">${escapeHtml(outcome.host)}</span>${
    outcome.agent ? ` for agent ${escapeHtml(outcome.agent)}` : ''
  }: the connection <b>${escapeHtml(outcome.connection)}</b> is ready.</p>
${discovered(tools, outcome.connection)}<p class="note">You can close this page.</p>`;
  return {
    status: 200,
    headers: {
      ...pageHeaders(),
      // The binding cookie has done its work.
      'Set-Cookie': cleared,
    },
    body: page('Connected', body),
  };
}

/** What the sign-in found on the server, in words: nothing, or tools waiting for review. */
export function discovered(tools: number | undefined, connection: string): string {
  if (tools === undefined) return '';
  if (tools === 0) return '<p>No tools were discovered on this server.</p>\n';
  const count = tools === 1 ? '1 tool was' : `${tools} tools were`;
  return `<p>${count} discovered; each is quarantined until an operator reviews it (portcullis actions ${escapeHtml(connection)}).</p>\n`;
}

function refusedPage(error: unknown): OAuthReply {
  if (!(error instanceof GatewayError)) throw error;
  const shown = publicError(error);
  return problemPage(error.status, 'Sign-in refused', `${shown.message} (${shown.code})`);
}

export { SIGN_IN_PAGE_PATH };
