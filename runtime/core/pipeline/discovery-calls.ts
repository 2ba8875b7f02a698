/**
 * Discovery mode: an agent served `search_actions`, `describe_action` and
 * `call_action` instead of its catalog. Nothing here decides who may call
 * what:
 *
 *   - search reads an index of exactly the tools the agent's `tools/list`
 *     would show in direct mode (built once per governance snapshot and
 *     agent, like that list), narrowed by the token's scopes;
 *   - describe is the direct call's decision (`decideToolCall`) and the tool
 *     as `ToolViews` lists it, or the decision's refusal;
 *   - call is the direct call itself under the action's name (the pipeline's
 *     `direct`), so its validation, refusals, reason codes, step-up
 *     challenge and one audit event are the direct call's, the event marked
 *     `via: discovery`.
 *
 * Search and describe leave an event too (`search_actions`, `describe_action`).
 */
import type { Tool } from '@modelcontextprotocol/server';
import { createAjv } from '../base/create-ajv.ts';
import { GatewayError } from '../base/errors.ts';
import { isPlainObject } from '../base/json-value.ts';
import { ActionIndex, type SearchRequest, searchActions } from '../discovery/action-index.ts';
import { discoverableAction } from '../discovery/discoverable-action.ts';
import {
  CALL_ACTION,
  DISCOVERY_TOOLS,
  describeReply,
  SEARCH_ACTIONS,
  searchReply,
} from '../discovery/discovery-tools.ts';
import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import { agentOf, type Caller } from '../identity/principals/principals.ts';
import { scopesAllow } from '../identity/principals/scopes.ts';
import type { ToolCall, ToolOutcome } from '../mcp/server/tool-backend.ts';
import { withJsonText } from '../mcp/wire/json-text.ts';
import type { Agent } from '../model/governance.ts';
import type { CallAudit } from './audited-call.ts';
import { decideToolCall } from './decision.ts';
import type { ToolViews } from './tool-views.ts';

/** How `call_action` runs the call it names: the pipeline's direct call, marked as come through discovery. */
export type DirectCall = (caller: Caller, call: ToolCall) => Promise<ToolOutcome>;

export interface DiscoveryCallsOptions {
  views: ToolViews;
  audit: CallAudit;
  /** `auto` mode: discovery once an agent may call more tools than this. */
  threshold: number;
  direct: DirectCall;
}

/** What one agent is served at one revision. */
interface Served {
  discovery: boolean;
  index: ActionIndex | undefined;
}

export class DiscoveryCalls {
  readonly #options: DiscoveryCallsOptions;
  readonly #served = new WeakMap<GovernanceSnapshot, Map<string, Served>>();
  readonly #tools: Tool[] = withJsonText([...DISCOVERY_TOOLS]);
  /** The three input schemas' validators, compiled at the first call (ajv's compile is a cost a start need not pay). */
  #checks: ReadonlyMap<string, ReturnType<ReturnType<typeof createAjv>['compile']>> | undefined;

  constructor(options: DiscoveryCallsOptions) {
    this.#options = options;
  }

  /** The three tools, as `tools/list` shows them in discovery mode. */
  get tools(): Tool[] {
    return this.#tools;
  }

  /** Whether this agent is served the discovery tools at this revision (its mode, `auto` resolved). */
  serves(snapshot: GovernanceSnapshot, agent: Agent): boolean {
    return this.#servedTo(snapshot, agent).discovery;
  }

  /** A discovery tool by name, when the caller is served them. */
  toolFor(caller: Caller, name: string): Tool | undefined {
    const agent = agentOf(caller);
    if (!agent || !this.serves(caller.snapshot, agent)) return undefined;
    return this.#tools.find((tool) => tool.name === name);
  }

  /** Runs a call of one of the three tools (the caller is served them). */
  async call(caller: Caller, call: ToolCall): Promise<ToolOutcome> {
    const problem = this.#problemOf(call.name, call.arguments);
    const args = call.arguments ?? {};
    if (call.name === CALL_ACTION && problem === undefined) {
      const { action, arguments: inner } = args as { action: string; arguments: object };
      return this.#options.direct(caller, {
        ...call,
        name: action,
        arguments: inner as Record<string, unknown>,
        decided: undefined,
      });
    }
    return this.#options.audit.run(
      { caller, action: call.name, trace: call.trace, span: call.span, via: 'discovery' },
      async (audited) => {
        audited.hashArguments(args);
        if (problem !== undefined) {
          await audited.failed(problem);
          throw problem;
        }
        if (call.name === SEARCH_ACTIONS) {
          const reply = this.#search(caller, args as unknown as SearchRequest);
          await audited.finish({ decision: 'allowed', outcome: 'ok' });
          return { ...reply };
        }
        const decision = decideToolCall(caller, (args as { action: string }).action);
        if (!decision.listed) {
          if (decision.allowed) throw new TypeError('an allowed call is listed');
          return audited.refuse(decision);
        }
        audited.allowed(decision.listed.connection.id);
        const tool = this.#options.views.toolOf(decision.listed);
        await audited.finish({ decision: 'allowed', outcome: 'ok' });
        return { ...describeReply(tool, decision.listed.action.classification) };
      },
    );
  }

  /**
   * The action a `call_action` names, for an event the endpoint refused
   * before the call ran; undefined when it names none.
   */
  actionOf(args: Record<string, unknown> | undefined): string | undefined {
    return typeof args?.action === 'string' ? args.action : undefined;
  }

  #search(caller: Caller, request: SearchRequest) {
    const agent = agentOf(caller);
    if (!agent) throw new GatewayError('unauthenticated');
    const index = this.#indexOf(caller.snapshot, agent);
    const { scopes } = caller;
    const narrowed: SearchRequest =
      scopes === undefined
        ? request
        : { ...request, allowed: (found) => scopesAllow(scopes, found.class, found.connection) };
    return searchReply(request, searchActions(index, narrowed));
  }

  /** What is wrong with a discovery tool's arguments, by its input schema (`arguments_invalid`); undefined when nothing. */
  #problemOf(name: string, args: Record<string, unknown> | undefined): GatewayError | undefined {
    const value = args ?? {};
    this.#checks ??= compiledChecks();
    const check = this.#checks.get(name);
    if (check?.(value) && isPlainObject(value)) return undefined;
    const first = check?.errors?.[0];
    return new GatewayError(
      'arguments_invalid',
      `arguments do not match ${name}'s input schema: ${first?.instancePath || '/'} ${first?.message ?? 'is not an object'}`,
      { field: first?.instancePath ?? '' },
    );
  }

  #servedTo(snapshot: GovernanceSnapshot, agent: Agent): Served {
    let byAgent = this.#served.get(snapshot);
    if (!byAgent) {
      byAgent = new Map();
      this.#served.set(snapshot, byAgent);
    }
    let served = byAgent.get(agent.id);
    if (!served) {
      const mode = snapshot.toolsModeOf(agent);
      // `auto` counts what the agent may call; `direct` never needs to.
      const discovery =
        mode === 'discovery' ||
        (mode === 'auto' && snapshot.visibleTools(agent).length > this.#options.threshold);
      served = { discovery, index: undefined };
      byAgent.set(agent.id, served);
    }
    return served;
  }

  /** The index of what the agent may call at this revision: built on its first search, then kept. */
  #indexOf(snapshot: GovernanceSnapshot, agent: Agent): ActionIndex {
    const served = this.#servedTo(snapshot, agent);
    served.index ??= new ActionIndex(
      snapshot
        .visibleTools(agent)
        .map(({ connection, action }) => discoverableAction(connection, action)),
    );
    return served.index;
  }
}

function compiledChecks(): ReadonlyMap<
  string,
  ReturnType<ReturnType<typeof createAjv>['compile']>
> {
  const ajv = createAjv([]);
  return new Map(DISCOVERY_TOOLS.map((tool) => [tool.name, ajv.compile(tool.inputSchema)]));
}
