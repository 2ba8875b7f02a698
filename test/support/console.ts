/**
 * A gateway serving the built console, with people and things to show: in
 * the default workspace an owner, an operator, a viewer and a member
 * without a console role, a remote MCP server connected by URL (its tools
 * reviewed) and an agent; in a second workspace an owner of its own, an
 * agent and a connection, which nobody of the first may see. And a small
 * client of `/console/api` that keeps its session cookie.
 */
import { changeActions } from '../../runtime/core/operator/actions.ts';
import { createAgent } from '../../runtime/core/operator/agents.ts';
import { addMember } from '../../runtime/core/operator/members.ts';
import { connectUrl } from '../../runtime/core/operator/remote-connections.ts';
import { createWorkspace } from '../../runtime/core/operator/workspaces.ts';
import { builtConsole } from './console-build.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';
import { startUpstream, type Upstream } from './remote/upstream-servers.ts';

export const PASSWORD = 'correct horse battery staple';
/** Who signs in, by role. */
export const PEOPLE = {
  owner: 'olga',
  operator: 'oscar',
  viewer: 'vera',
  member: 'mia',
  otherOwner: 'otto',
} as const;
export const CONNECTION = 'weather';
export const OTHER = { workspace: 'elsewhere', agent: 'hidden-bot', connection: 'hidden-remote' };

export interface ConsoleGateway {
  gateway: TestGateway;
  upstream: Upstream;
  url: string;
  close(): Promise<void>;
}

/**
 * `upstreams`: providers' calls sent elsewhere (Prism), as `startTestGateway` takes them;
 * `environment`: more of the gateway's variables (`PORTCULLIS_REVIEW_FLAGGED`).
 */
export async function startConsoleGateway(
  options: { upstreams?: Record<string, string>; environment?: Record<string, string> } = {},
): Promise<ConsoleGateway> {
  const [consoleAssets, upstream] = await Promise.all([builtConsole(), startUpstream('modern')]);
  const gateway = await startTestGateway({
    consoleAssets,
    environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1', ...options.environment },
    ...(options.upstreams ? { upstreams: options.upstreams } : {}),
  });
  const ctx = gateway.running.gateway.operator('cli');
  const workspace = 'default';
  for (const role of ['owner', 'operator', 'viewer', 'member'] as const)
    await addMember(ctx, { workspace, name: PEOPLE[role], password: PASSWORD, role });
  await connectUrl(ctx, { workspace, url: upstream.url, name: CONNECTION });
  await changeActions(ctx, 'review', { workspace, connection: CONNECTION, all: true });
  await createAgent(ctx, { workspace, name: 'deploy-bot' });

  await createWorkspace(ctx, { name: OTHER.workspace });
  await addMember(ctx, {
    workspace: OTHER.workspace,
    name: PEOPLE.otherOwner,
    password: PASSWORD,
    role: 'owner',
  });
  await createAgent(ctx, { workspace: OTHER.workspace, name: OTHER.agent });
  await connectUrl(ctx, { workspace: OTHER.workspace, url: upstream.url, name: OTHER.connection });
  return {
    gateway,
    upstream,
    url: gateway.url,
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}

export interface ConsoleReply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON replies field by field and assert on them
  body: any;
  headers: Headers;
}

/** A console API client: `signIn` keeps the session's cookie and CSRF token for later calls. */
export function consoleClient(url: string) {
  let cookie = '';
  let csrf = '';
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    options: { csrf?: string; origin?: string } = {},
  ): Promise<ConsoleReply> => {
    const response = await fetch(`${url}/console/api${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(cookie ? { cookie } : {}),
        ...((options.csrf ?? csrf) ? { 'x-portcullis-csrf': options.csrf ?? csrf } : {}),
        ...(options.origin ? { origin: options.origin } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? JSON.parse(text) : undefined,
      headers: response.headers,
    };
  };
  return {
    call,
    async signIn(name: string, password = PASSWORD): Promise<ConsoleReply> {
      const reply = await call('POST', '/sign-in', { name, password });
      const set = reply.headers.get('set-cookie');
      if (reply.status === 200 && set) {
        cookie = set.split(';')[0]!;
        csrf = reply.body.csrf;
      }
      return reply;
    },
  };
}
