/**
 * What every call reads, held in memory: the governance rows as of one store
 * revision. The gateway rebuilds it when the revision moves (a change from this
 * process, the `portcullis` command or another replica), so a revoked agent is
 * refused on its next call while unchanged state costs one small query.
 */

import type {
  ActionPolicy,
  Agent,
  Connection,
  Grant,
  MemberGrant,
  ToolsMode,
  Workspace,
} from '../model/governance.ts';
import type { RateLimitOverride, RateLimitSubject } from '../model/rate-limits.ts';
import type { Store } from '../ports/store.ts';
import { decide } from './decide.ts';
import { type ToolNameCollision, toolNameFor, toolsByName } from './tool-names.ts';
import type { ToolSource, ToolSources, ToolTarget } from './tool-source.ts';

export interface GovernanceSnapshotOptions {
  /**
   * Told about two tools of a workspace that would share a name (connect,
   * refresh and review refuse to make one, so only a store changed some
   * other way holds it): neither is served.
   */
  onToolNameCollision?: (collision: ToolNameCollision) => void;
}

export class GovernanceSnapshot {
  readonly revision: number;
  readonly #agentsByKeyHash: ReadonlyMap<string, Agent>;
  readonly #agentsById: ReadonlyMap<string, Agent>;
  readonly #grantsByAgent: ReadonlyMap<string, Grant[]>;
  readonly #policies: ReadonlyMap<string, ActionPolicy>;
  readonly #policiesList: readonly ActionPolicy[];
  readonly #toolsByWorkspace = new Map<string, Map<string, ToolTarget>>();
  readonly #retiredByWorkspace = new Map<string, Map<string, RetiredAction>>();
  readonly #connections: readonly Connection[];
  /** Rate-limit overrides by `<subject>:<id>`. */
  readonly #rateLimits: ReadonlyMap<string, RateLimitOverride>;
  readonly #toolsModes: ReadonlyMap<string, ToolsMode>;
  #connectionNames: Set<string> | undefined;
  readonly #toolSources: ToolSources;
  readonly #options: GovernanceSnapshotOptions;

  private constructor(
    revision: number,
    rows: {
      agents: Array<Agent & { keyHash: string }>;
      connections: Connection[];
      grants: Grant[];
      memberGrants: MemberGrant[];
      policies: ActionPolicy[];
      rateLimits: RateLimitOverride[];
      workspaces: Workspace[];
    },
    toolSources: ToolSources,
    options: GovernanceSnapshotOptions,
  ) {
    this.revision = revision;
    this.#toolSources = toolSources;
    this.#options = options;
    this.#connections = rows.connections;
    this.#rateLimits = new Map(
      rows.rateLimits.map((limit) => [`${limit.subject}:${limit.subjectId}`, limit]),
    );
    this.#toolsModes = new Map(rows.workspaces.map((w) => [w.id, w.toolsMode]));
    this.#agentsByKeyHash = new Map(rows.agents.map(({ keyHash, ...agent }) => [keyHash, agent]));
    this.#agentsById = new Map(
      [...this.#agentsByKeyHash.values()].map((agent) => [agent.id, agent]),
    );
    const grants = new Map<string, Grant[]>();
    for (const grant of rows.grants) {
      const list = grants.get(grant.agentId);
      if (list) list.push(grant);
      else grants.set(grant.agentId, [grant]);
    }
    // An agent acting for a member (a consent made it) holds the member's grants too,
    // as its own on each connection it has none of its own on; the token's scopes narrow them.
    const byMember = new Map<string, MemberGrant[]>();
    for (const grant of rows.memberGrants) {
      const list = byMember.get(grant.memberId);
      if (list) list.push(grant);
      else byMember.set(grant.memberId, [grant]);
    }
    for (const agent of this.#agentsById.values()) {
      const held = agent.memberId === null ? undefined : byMember.get(agent.memberId);
      if (held === undefined) continue;
      const own = grants.get(agent.id) ?? [];
      const merged = [...own];
      for (const grant of held) {
        if (grant.workspaceId !== agent.workspaceId) continue;
        if (own.some((g) => g.connectionId === grant.connectionId)) continue;
        merged.push({
          id: grant.id,
          workspaceId: grant.workspaceId,
          agentId: agent.id,
          connectionId: grant.connectionId,
          scope: grant.scope,
          actions: grant.actions,
          credentialMode: 'shared',
          createdAt: grant.createdAt,
        });
      }
      grants.set(agent.id, merged);
    }
    this.#grantsByAgent = grants;
    this.#policiesList = rows.policies;
    this.#policies = new Map(rows.policies.map((p) => [policyKey(p.connectionId, p.action), p]));
  }

  static async read(
    store: Store,
    toolSources: ToolSources,
    options: GovernanceSnapshotOptions = {},
  ): Promise<GovernanceSnapshot> {
    return store.transaction(async (tx) => {
      const [
        revision,
        agents,
        connections,
        grants,
        memberGrants,
        policies,
        rateLimits,
        workspaces,
      ] = await Promise.all([
        tx.revision(),
        tx.agents.all(),
        tx.connections.all(),
        tx.grants.all(),
        tx.memberGrants.all(),
        tx.policies.all(),
        tx.rateLimits.all(),
        tx.workspaces.list(),
      ]);
      const sources = toolSources.read ? await toolSources.read(tx) : toolSources;
      return new GovernanceSnapshot(
        revision,
        { agents, connections, grants, memberGrants, policies, rateLimits, workspaces },
        sources,
        options,
      );
    });
  }

  agentByKeyHash(keyHash: string): Agent | undefined {
    return this.#agentsByKeyHash.get(keyHash);
  }

  /** The rate limit an operator set for one agent or connection, if any. */
  rateLimitOf(subject: RateLimitSubject, id: string): RateLimitOverride | undefined {
    return this.#rateLimits.get(`${subject}:${id}`);
  }

  agentById(id: string): Agent | undefined {
    return this.#agentsById.get(id);
  }

  /** How the agent is served its tools: its own mode, else its workspace's (`direct` until set). */
  toolsModeOf(agent: Agent): ToolsMode {
    return agent.toolsMode ?? this.#toolsModes.get(agent.workspaceId) ?? 'direct';
  }

  /** Every grant the agent holds, one per connection. */
  grantsOf(agentId: string): readonly Grant[] {
    return this.#grantsByAgent.get(agentId) ?? [];
  }

  /** A connection by id, with its tool source (undefined when it has none). */
  connectionById(
    id: string,
  ): { connection: Connection; source: ToolSource | undefined } | undefined {
    const connection = this.#connections.find((c) => c.id === id);
    return connection && { connection, source: this.#toolSources.of(connection) };
  }

  grantOf(agentId: string, connectionId: string): Grant | undefined {
    return this.#grantsByAgent.get(agentId)?.find((grant) => grant.connectionId === connectionId);
  }

  policyOf(connectionId: string, action: string): ActionPolicy | undefined {
    return this.#policies.get(policyKey(connectionId, action));
  }

  /** Whether a connection with this id exists at this revision (in any workspace; ids are never reused). */
  hasConnection(id: string): boolean {
    return this.#connections.some((c) => c.id === id);
  }

  /** Whether some workspace has a connection by this name (so `/mcp/c/<name>` exists). */
  hasConnectionNamed(name: string): boolean {
    this.#connectionNames ??= new Set(this.#connections.map((c) => c.name));
    return this.#connectionNames.has(name);
  }

  /** A connection of the workspace by name. */
  connectionByName(workspaceId: string, name: string): Connection | undefined {
    return this.#connections.find((c) => c.workspaceId === workspaceId && c.name === name);
  }

  /** A tool name in the agent's workspace, whether or not the agent may call it. */
  resolveTool(workspaceId: string, toolName: string): ToolTarget | undefined {
    return this.#workspaceTools(workspaceId).get(toolName);
  }

  /**
   * The tools an agent may call now: granted, on an active connection, enabled,
   * and reviewed at its source's contract hash.
   */
  visibleTools(agent: Agent): ToolTarget[] {
    const visible: ToolTarget[] = [];
    for (const grant of this.#grantsByAgent.get(agent.id) ?? []) {
      for (const target of this.#workspaceTools(agent.workspaceId).values()) {
        if (target.connection.id !== grant.connectionId) continue;
        const { connection, action } = target;
        const policy = this.policyOf(connection.id, action.name);
        if (decide({ agent, connection, grant, policy, action }) === null) visible.push(target);
      }
    }
    return visible;
  }

  /**
   * The retired action a name stood for (its source lists it no more, its
   * policy kept as `retired`), under the name `resolveTool` would have given
   * it; undefined when the name is a live tool's or never was one.
   */
  retiredAction(workspaceId: string, toolName: string): RetiredAction | undefined {
    let retired = this.#retiredByWorkspace.get(workspaceId);
    if (!retired) {
      retired = new Map();
      const live = this.#workspaceTools(workspaceId);
      for (const policy of this.#policiesList) {
        if (policy.state !== 'retired' || policy.workspaceId !== workspaceId) continue;
        const connection = this.#connections.find((c) => c.id === policy.connectionId);
        if (!connection) continue;
        const name = toolNameFor(connection, policy.action);
        if (!live.has(name)) retired.set(name, { connection, action: policy.action });
      }
      this.#retiredByWorkspace.set(workspaceId, retired);
    }
    return retired.get(toolName);
  }

  #workspaceTools(workspaceId: string): Map<string, ToolTarget> {
    let tools = this.#toolsByWorkspace.get(workspaceId);
    if (!tools) {
      const targets: ToolTarget[] = [];
      for (const connection of this.#connections) {
        if (connection.workspaceId !== workspaceId) continue;
        const source = this.#toolSources.of(connection);
        if (!source) continue;
        for (const action of source.actions) targets.push({ connection, source, action });
      }
      const named = toolsByName(targets, (target) => ({
        connection: target.connection,
        action: target.action.name,
      }));
      for (const collision of named.collisions) this.#options.onToolNameCollision?.(collision);
      tools = named.tools;
      this.#toolsByWorkspace.set(workspaceId, tools);
    }
    return tools;
  }
}

/** An action its connection's source no longer offers, kept as `retired`. */
export interface RetiredAction {
  connection: Connection;
  /** The action's policy key (a tool's name, or `prompt:<name>`, … for a remote feature). */
  action: string;
}

function policyKey(connectionId: string, action: string): string {
  return `${connectionId}\0${action}`;
}
