/**
 * Remote MCP servers' tools held for approval: a gateway that reaches
 * loopback servers, its agent `remover` and its approver `oscar` (an
 * operator who signs in to the console); and each server connected by URL,
 * its actions reviewed, the named ones set to `ask`, and the agent granted
 * all of it, as an operator does it.
 */
import { expect } from 'vitest';
import { changeActions } from '../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../runtime/core/operator/context.ts';
import { grant } from '../../../runtime/core/operator/grants.ts';
import { addMember } from '../../../runtime/core/operator/members.ts';
import { connectUrl } from '../../../runtime/core/operator/remote-connections.ts';
import { PASSWORD } from '../console.ts';
import { adminClient, startTestGateway, type TestGateway } from '../gateway.ts';

/** The agent that calls the held tools. */
export const REMOVER = 'remover';
/** The operator who approves or denies in the console (its password `PASSWORD` of console.ts). */
export const APPROVER = 'oscar';

export interface RemoteHeldGateway {
  gateway: TestGateway;
  ctx: OperatorContext;
  admin: ReturnType<typeof adminClient>;
  /** `REMOVER`'s key. */
  key: string;
}

/** A gateway whose held requests wait `waitMs` (`PORTCULLIS_APPROVAL_WAIT_MS`), with `REMOVER` and `APPROVER`. */
export async function startRemoteHeldGateway(waitMs: string): Promise<RemoteHeldGateway> {
  const gateway = await startTestGateway({
    environment: {
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      PORTCULLIS_APPROVAL_WAIT_MS: waitMs,
    },
  });
  const ctx = gateway.running.gateway.operator('cli');
  const workspace = 'default';
  const { key } = await createAgent(ctx, { workspace, name: REMOVER });
  await addMember(ctx, { workspace, name: APPROVER, password: PASSWORD, role: 'operator' });
  return { gateway, ctx, admin: adminClient(gateway.url, gateway.adminToken!), key };
}

export interface HeldRemoteOptions {
  /** The server's MCP URL. */
  url: string;
  /** The connection's name. */
  connection: string;
  /** The actions set to `ask`. */
  actions: string[];
  /** The agent granted all of the connection; default `REMOVER`. */
  agent?: string;
  workspace?: string;
}

export async function holdRemoteTools(
  ctx: OperatorContext,
  options: HeldRemoteOptions,
): Promise<void> {
  const { url, connection, actions } = options;
  const agent = options.agent ?? REMOVER;
  const workspace = options.workspace ?? 'default';
  await connectUrl(ctx, { workspace, url, name: connection });
  await changeActions(ctx, 'review', { workspace, connection, all: true });
  const asked = await changeActions(ctx, 'ask', { workspace, connection, actions });
  expect(asked).toMatchObject(actions.map(() => ({ state: 'ask' })));
  await grant(ctx, { workspace, agent, connection, scope: 'all' });
}
