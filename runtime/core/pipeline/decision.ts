/**
 * The one decision on a call of any kind, made once per call: a tool call,
 * a prompt get, a resource read or subscription, a completion, the lists of
 * a connection's prompts and resources. In order:
 *
 *   the caller's agent (active, not revoked) → what the call names (a tool;
 *   a connection, and its prompt, resource or template) → the grant (held,
 *   covering it) → the connection (active) → the policy (reviewed at the
 *   contract served; not quarantined, disabled or retired) → the token's
 *   scopes (they narrow what the grant allows, never widen it)
 *
 * The rows' part is `decide` (governance/decide.ts); this adds the names,
 * the scopes and how a refusal is said: a `GatewayError` with the reason
 * code and the message that names what would change it. A connection whose
 * prompts and resources the caller may not read (no grant that covers
 * reads, inactive, beyond its token's scopes) is `not_granted` whatever the
 * reason (a token's scopes are weighed with the connection, before the item);
 * one of them held back is refused with its review state's reason.
 */
import type { Classification } from '../../../generated/catalog-format.ts';
import { deniedMessage, GatewayError, REASONS, type ReasonCode } from '../base/errors.ts';
import { decide } from '../governance/decide.ts';
import type { ToolTarget } from '../governance/tool-source.ts';
import { agentOf, type Caller } from '../identity/principals/principals.ts';
import { scopeFor, scopesAllow } from '../identity/principals/scopes.ts';
import { isAppUri } from '../mcp/wire/apps.ts';
import type { Agent, Connection, Grant } from '../model/governance.ts';
import type { RemoteFeature } from '../model/remote.ts';
import { featureKey, featureOfKey } from '../sources/remote-mcp/remote-feature-contract.ts';
import type { RemoteToolSource } from '../sources/remote-mcp/remote-tool-source.ts';
import { heldRefusal, type NamedFeature } from './pinned-features.ts';

/** What every allowed call runs with. */
export interface Allowed {
  readonly allowed: true;
  readonly agent: Agent;
  readonly connection: Connection;
  readonly grant: Grant;
  /** Whose credential the call carries: the agent's own under a personal grant, else the connection's (null). */
  readonly credentialOwner: string | null;
}

export interface Refused {
  readonly allowed: false;
  /** What the caller is told, with its reason code. */
  readonly refusal: GatewayError;
  /** The connection the call named, when the caller's workspace has it. */
  readonly connectionId: string | null;
}

export interface AllowedTool extends Allowed {
  readonly target: ToolTarget;
  /** The action's policy is `ask`: the call is held for approval (held-calls.ts) before it runs. */
  readonly ask: boolean;
}

export type ToolDecision = (AllowedTool | Refused) & {
  /** The tool as the caller's list shows it, if it does (a token's scopes narrow calls, not the list). */
  readonly listed: ToolTarget | undefined;
};

export interface AllowedFeatures extends Allowed {
  readonly source: RemoteToolSource;
  /** The pin of the prompt, resource or template named (none for a resource read as data, or a list). */
  readonly pinned: RemoteFeature | undefined;
}

export type FeatureDecision = AllowedFeatures | Refused;

/** A request for a connection's prompts, resources and templates. */
export interface FeatureAsk {
  /** The connection it names; undefined when it names none. */
  connection: string | undefined;
  /** The prompt, resource or template it names; undefined for the connection's lists. */
  item?: NamedFeature;
  /** What a name that is no connection of the workspace is refused with. */
  unknown(): GatewayError;
}

/** The decision on a call of the tool `name` (as `/mcp` names it). */
export function decideToolCall(caller: Caller, name: string): ToolDecision {
  const { snapshot } = caller;
  const agent = agentOf(caller);
  if (!agent) return unlisted(refused(toolRefusal(name, 'unauthenticated'), null));
  const target = snapshot.resolveTool(agent.workspaceId, name);
  if (!target) {
    // A tool its connection retired is said to be retired, to an agent granted that connection.
    const retired = snapshot.retiredAction(agent.workspaceId, name);
    if (
      retired !== undefined &&
      featureOfKey(retired.action) === undefined &&
      snapshot.grantOf(agent.id, retired.connection.id) !== undefined
    ) {
      const message = `connection ${retired.connection.name} no longer offers ${retired.action}; it was retired`;
      return unlisted(refused(toolRefusal(name, 'action_retired', message), retired.connection.id));
    }
    return unlisted(refused(toolRefusal(name, 'tool_unknown'), null));
  }
  const { connection, action } = target;
  const grant = snapshot.grantOf(agent.id, connection.id);
  const policy = snapshot.policyOf(connection.id, action.name);
  const denial = decide({ agent, connection, grant, policy, action });
  // A decision of null implies a grant; the second test only tells the compiler so.
  if (denial !== null || grant === undefined) {
    const reason = denial ?? 'not_granted';
    const message = deniedMessage(reason, {
      agent: agent.name,
      connection: connection.name,
      action: action.name,
      classification: action.classification,
      grantScope: grant?.scope,
    });
    return unlisted(refused(toolRefusal(name, reason, message), connection.id));
  }
  if (!tokenAllows(caller, action.classification, connection)) {
    const scope = scopeFor(action.classification);
    const refusal = toolRefusal(
      name,
      'insufficient_scope',
      `this ${action.classification} needs the scope ${scope} (or ${scope}:${connection.name}); ask for it again with that scope`,
      // The scopes the token has and the one it lacks: a client that asks for
      // exactly these steps up without losing what it could do.
      { scope: [...new Set([...(caller.scopes ?? []), scope])].join(' ') },
    );
    return { ...refused(refusal, connection.id), listed: target };
  }
  return {
    allowed: true,
    listed: target,
    ...allowedOn(agent, connection, grant),
    target,
    ask: policy?.state === 'ask',
  };
}

/** The decision on a request for a connection's prompts, resources or templates. */
export function decideFeatureRead(caller: Caller, asked: FeatureAsk): FeatureDecision {
  const agent = agentOf(caller);
  if (!agent) return refused(new GatewayError('unauthenticated'), null);
  const connection =
    asked.connection === undefined
      ? undefined
      : caller.snapshot.connectionByName(agent.workspaceId, asked.connection);
  if (!connection) return refused(asked.unknown(), null);
  return decideOnConnection(caller, agent, connection, asked.item);
}

/** The remote connections (of `only`, when given) whose prompts and resources the caller may read now. */
export function readableConnections(caller: Caller, only: string | undefined): AllowedFeatures[] {
  const agent = agentOf(caller);
  if (!agent) return [];
  const readable: AllowedFeatures[] = [];
  for (const grant of caller.snapshot.grantsOf(agent.id)) {
    const found = caller.snapshot.connectionById(grant.connectionId);
    if (!found || (only !== undefined && found.connection.name !== only)) continue;
    const decision = decideOnConnection(caller, agent, found.connection, undefined);
    if (decision.allowed) readable.push(decision);
  }
  return readable;
}

function decideOnConnection(
  caller: Caller,
  agent: Agent,
  connection: Connection,
  item: NamedFeature | undefined,
): FeatureDecision {
  const { snapshot } = caller;
  const source = snapshot.connectionById(connection.id)?.source;
  // Only a remote MCP server serves prompts and resources; one being connected serves none yet.
  const remote =
    source?.kind === 'remote_mcp' && (source as RemoteToolSource).endpoint.draft === null
      ? (source as RemoteToolSource)
      : undefined;
  const grant = snapshot.grantOf(agent.id, connection.id);
  if (remote === undefined || grant === undefined)
    return refused(notReadable(agent, connection, item), connection.id);
  const key = item && featureKey(item.kind, item.id);
  const pinned = key === undefined ? undefined : remote.features.get(key);
  const denial = decide({
    agent,
    connection,
    grant,
    policy: key === undefined ? undefined : snapshot.policyOf(connection.id, key),
    action: {
      reads: 'features',
      ...(item
        ? {
            item: {
              kind: item.kind,
              contractHash: pinned?.contractHash,
              ...(item.kind === 'resource' && isAppUri(item.id) ? { app: true } : {}),
            },
          }
        : {}),
    },
  });
  // A prompt or resource is a read of its connection: a token's scopes decide it with the
  // connection, before what the item's review state says.
  const readable = tokenAllows(caller, 'read', connection);
  if (denial !== null && readable && item !== undefined && key !== undefined && isHeld(denial))
    return refused(heldRefusal(denial, connection, item, key), connection.id);
  if (denial !== null || !readable)
    return refused(notReadable(agent, connection, item), connection.id);
  return { allowed: true, ...allowedOn(agent, connection, grant), source: remote, pinned };
}

/** An access token's scopes narrow what the grant allows; an agent key's grants alone decide. */
function tokenAllows(caller: Caller, classification: Classification, connection: Connection) {
  return caller.scopes === undefined || scopesAllow(caller.scopes, classification, connection.name);
}

/** The reasons a review state holds a prompt, resource or template back with. */
function isHeld(reason: ReasonCode): boolean {
  return (
    reason === 'action_quarantined' ||
    reason === 'action_disabled' ||
    reason === 'action_retired' ||
    reason === 'contract_changed'
  );
}

function notReadable(
  agent: Agent,
  connection: Connection,
  item: NamedFeature | undefined,
): GatewayError {
  const what = item?.kind === 'prompt' ? 'prompts' : 'resources';
  return new GatewayError(
    'not_granted',
    `this agent may not read ${what} of ${connection.name}: a grant on it that covers reads does (portcullis grant ${agent.name} ${connection.name} --scope reads)`,
  );
}

function toolRefusal(
  name: string,
  reason: ReasonCode,
  message: string = REASONS[reason].message,
  detail?: Record<string, unknown>,
): GatewayError {
  return new GatewayError(reason, `${name}: ${message}`, detail ? { detail } : {});
}

function allowedOn(agent: Agent, connection: Connection, grant: Grant) {
  return {
    agent,
    connection,
    grant,
    credentialOwner: grant.credentialMode === 'personal' ? agent.id : null,
  };
}

function refused(refusal: GatewayError, connectionId: string | null): Refused {
  return { allowed: false, refusal, connectionId };
}

function unlisted(decision: Refused): ToolDecision {
  return { ...decision, listed: undefined };
}
