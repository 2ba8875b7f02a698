/**
 * Machine clients (`portcullis oauth client add --machine`, issue 35): an
 * OAuth client an operator registers for the `client_credentials` grant and
 * for redeeming ID-JAGs, with no member and no browser. It is made with an
 * agent of its own, of the same name, whose grants are what its tokens
 * reach; revoking or deleting the agent stops the client. It authenticates
 * with a secret (`client_secret_basic`: shown once here, kept as its
 * sha256) or with the keys at its JWKS URL (`private_key_jwt`).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { sha256Hex } from '../../../generated/catalog-rules.ts';
import { GatewayError } from '../base/errors.ts';
import { hashKey, newId } from '../governance/keys.ts';
import { endpointRefusal } from '../identity/oauth-client/endpoint-check.ts';
import type { Agent, GrantScope } from '../model/governance.ts';
import type { MachineAuthMethod, MachineClient } from '../model/oauth.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import { NameSchema } from './names.ts';

const AddSchema = z.strictObject({
  workspace: z.string().min(1),
  name: NameSchema,
  /** A JWKS URL (`private_key_jwt`); unset: a secret (`client_secret_basic`). */
  jwksUri: z.string().min(1).max(2_048).optional(),
});

/** A machine client as the verbs show it: never its secret's hash. */
export interface MachineClientView {
  id: string;
  name: string;
  workspace: string;
  auth: MachineAuthMethod;
  jwksUri: string | null;
  createdAt: string;
  /** The agent its tokens act as (of its own name), and that agent's grants: what its tokens reach. */
  agent: string;
  grants: MachineClientGrant[];
}

export interface MachineClientGrant {
  connection: string;
  scope: GrantScope;
  actions: string[];
}

const ClientRefSchema = z.strictObject({
  workspace: z.string().min(1),
  /** Its id (`pcm_…`) or its name. */
  client: z.string().min(1).max(200),
});

export async function addMachineClient(
  ctx: OperatorContext,
  input: unknown,
): Promise<{ client: MachineClientView; secret?: string }> {
  return attempt(ctx, 'oauth.client.add', input, async () => {
    const parsed = parseInput(AddSchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    if (parsed.jwksUri !== undefined) {
      // The development policy's loopback http is taken here; a server without it refuses it when fetching.
      const verdict = endpointRefusal(parsed.jwksUri, { allowPrivateNetworks: true });
      if (verdict.why !== '')
        throw new GatewayError(
          'invalid_input',
          `jwksUri: an https URL without fragment or credentials (${verdict.why})`,
          { field: 'jwksUri' },
        );
    }
    if ((await ctx.store.agents.list(workspace.id)).some((a) => a.name === parsed.name))
      throw new GatewayError(
        'conflict',
        `an agent ${parsed.name} exists in this workspace: a machine client is made with an agent of its own name`,
        { field: 'name' },
      );
    const at = ctx.now().toISOString();
    const secret =
      parsed.jwksUri === undefined ? `pcs_${randomBytes(32).toString('base64url')}` : undefined;
    const agent: Agent = {
      id: newId(),
      workspaceId: workspace.id,
      name: parsed.name,
      keyPrefix: 'oauth',
      status: 'active',
      createdAt: at,
      revokedAt: null,
      memberId: null,
      toolsMode: null,
    };
    const client: MachineClient = {
      id: `pcm_${randomBytes(12).toString('base64url')}`,
      workspaceId: workspace.id,
      agentId: agent.id,
      name: parsed.name,
      auth: secret === undefined ? 'private_key_jwt' : 'client_secret_basic',
      secretHash: secret === undefined ? null : sha256Hex(secret),
      jwksUri: parsed.jwksUri ?? null,
      createdAt: at,
    };
    await ctx.store.transaction(async (tx) => {
      // No key anyone knows: only the client's access tokens act as this agent.
      await tx.agents.create(agent, hashKey(randomBytes(32).toString('base64url')));
      await tx.oauth.machineClients.create(client);
      await audit(ctx, tx, {
        action: 'oauth.client.add',
        workspaceId: workspace.id,
        subject: `${client.id}:${client.auth}`,
      });
    });
    const view = viewOf(client, workspace.name, []);
    return secret === undefined ? { client: view } : { client: view, secret };
  });
}

export async function listMachineClients(
  ctx: OperatorContext,
  input: unknown,
): Promise<MachineClientView[]> {
  const { workspace: ref } = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  const workspace = await workspaceOrThrow(ctx, ref);
  const [clients, grants, connections] = await Promise.all([
    ctx.store.oauth.machineClients.list(workspace.id),
    ctx.store.grants.list(workspace.id),
    ctx.store.connections
      .list(workspace.id)
      .then((list) => new Map(list.map((c) => [c.id, c.name]))),
  ]);
  return clients.map((client) =>
    viewOf(
      client,
      workspace.name,
      grants
        .filter((g) => g.agentId === client.agentId)
        .map((g) => ({
          connection: connections.get(g.connectionId) ?? g.connectionId,
          scope: g.scope,
          actions: g.actions,
        })),
    ),
  );
}

/**
 * Removes a machine client with its agent (and so the agent's grants): the
 * token endpoint no longer knows it, and every access token it was given is
 * refused from its next request, in this process and every other (the agent
 * is gone from the governance snapshot, the client from the store). Audited
 * as `oauth.client.remove`; the audit log keeps its history.
 */
export async function removeMachineClient(
  ctx: OperatorContext,
  input: unknown,
): Promise<MachineClientView> {
  return attempt(ctx, 'oauth.client.remove', input, async () => {
    const { workspace: ref, client: clientRef } = parseInput(ClientRefSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    const client = (await ctx.store.oauth.machineClients.list(workspace.id)).find(
      (c) => c.id === clientRef || c.name === clientRef,
    );
    if (client === undefined)
      throw new GatewayError(
        'not_found',
        'no machine client of that id or name in this workspace',
        {
          field: 'client',
        },
      );
    await ctx.store.transaction(async (tx) => {
      // The client goes with its agent (on delete cascade).
      await tx.agents.remove(workspace.id, client.agentId);
      await audit(ctx, tx, {
        action: 'oauth.client.remove',
        workspaceId: workspace.id,
        subject: `${client.id}:${client.auth}`,
      });
    });
    return viewOf(client, workspace.name, []);
  });
}

function viewOf(
  client: MachineClient,
  workspace: string,
  grants: MachineClientGrant[],
): MachineClientView {
  return {
    id: client.id,
    name: client.name,
    workspace,
    auth: client.auth,
    jwksUri: client.jwksUri,
    createdAt: client.createdAt,
    agent: client.name,
    grants,
  };
}
