/**
 * A remote connection as the console's **Connect your own MCP server** shows
 * it at each step (seed 000): what comes next (review its tools, sign in,
 * give a key or headers), its host with the **Unverified server** label
 * while no curated definition vouches for it, the host a sign-in sends the
 * operator to, and the header names it takes (never a value). Built from
 * what `connectUrl` and `importConfig` answer, or from the stored connection
 * when a draft is continued.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import type { Connection } from '../model/governance.ts';
import { REMOTE_MCP_PROVIDER, type RemoteEndpoint } from '../model/remote.ts';
import { connectionOrThrow } from './connection-lookup.ts';
import { remoteViewOf } from './connection-views.ts';
import { type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import type { RemoteConnectResult, RemoteNext } from './remote-connections.ts';

export interface ConnectStep {
  connection: string;
  status: Connection['status'];
  next: RemoteNext;
  url: string;
  host: string;
  /** Whether a curated definition names the address; false: the Unverified server label. */
  verified: boolean;
  label: string;
  curatedName?: string;
  authKind: RemoteEndpoint['authKind'];
  headerNames: string[];
  /** For a sign-in: the host the operator is sent to (the authorization endpoint's), and the issuer. */
  signIn?: { host: string; issuer: string };
  /** What discovery just found (a connect that reached the server): every item quarantined until reviewed. */
  found?: { tools: string[]; features: string[]; problems: string[] };
  /** The server's own name for itself (its text, shown as text). */
  server?: { name: string; version: string };
  /** The pinned tools' texts as the server wrote them, for the review step (a stored connection's). */
  tools?: Array<{ name: string; title?: string; description?: string }>;
}

const StepSchema = z.strictObject({
  workspace: z.string().min(1),
  connection: z.string().min(1),
});

/** The step a stored remote connection is at (a draft to continue, or one ready for review). */
export async function connectStep(ctx: OperatorContext, input: unknown): Promise<ConnectStep> {
  const parsed = parseInput(StepSchema, input);
  const workspace = await workspaceOrThrow(ctx, parsed.workspace);
  const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
  const endpoint =
    connection.provider === REMOTE_MCP_PROVIDER
      ? await ctx.store.remoteEndpoints.byConnection(connection.id)
      : undefined;
  if (!endpoint) throw notRemote(connection);
  const next: RemoteNext =
    endpoint.draft === 'sign_in_needed'
      ? 'sign_in'
      : endpoint.draft === 'credential_needed'
        ? 'credential'
        : 'review';
  const step = stepOf(ctx, connection, endpoint, next);
  if (next === 'review')
    step.tools = (await ctx.store.remoteTools.forConnection(connection.id)).map((tool) => ({
      name: tool.name,
      ...(tool.contract.title === undefined ? {} : { title: tool.contract.title }),
      ...(tool.contract.description === undefined
        ? {}
        : { description: tool.contract.description }),
    }));
  return step;
}

/** What a connect (by address or by a pasted config) answered, as a step. */
export function connectStepOf(ctx: OperatorContext, result: RemoteConnectResult): ConnectStep {
  const step = stepOf(ctx, result.connection, result.endpoint, result.next);
  if (result.tools)
    step.found = {
      tools: result.tools.tools,
      features: result.tools.features,
      problems: result.tools.problems,
    };
  return step;
}

function stepOf(
  ctx: OperatorContext,
  connection: Connection,
  endpoint: RemoteEndpoint,
  next: RemoteNext,
): ConnectStep {
  const view = remoteViewOf(endpoint, ctx.catalogs.remotes);
  const oauth = endpoint.oauth;
  return {
    connection: connection.name,
    status: connection.status,
    next,
    url: view.url,
    host: view.host,
    verified: view.verified,
    label: view.label,
    ...(view.curated ? { curatedName: view.curated.name } : {}),
    authKind: endpoint.authKind,
    headerNames: endpoint.headerNames,
    ...(endpoint.serverInfo
      ? { server: { name: endpoint.serverInfo.name, version: endpoint.serverInfo.version } }
      : {}),
    ...(oauth
      ? {
          signIn: {
            host: hostOf(oauth.metadata.authorization_endpoint) ?? hostOf(oauth.issuer) ?? '',
            issuer: oauth.issuer,
          },
        }
      : {}),
  };
}

function hostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

function notRemote(connection: Connection): GatewayError {
  return new GatewayError(
    'invalid_input',
    `connection: ${connection.name} is not a remote MCP connection`,
    { field: 'connection' },
  );
}
