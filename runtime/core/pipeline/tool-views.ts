/**
 * Tools as agents see them: each governed action as an MCP `Tool` under its
 * name on `/mcp`, built once per action and name (and app: a tool whose
 * MCP App is served carries its `_meta.ui`, served-apps.ts, to a client
 * that declares the extension), and each agent's list built once per
 * governance revision, with apps and without (a long list is served as text).
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import { toolNameFor } from '../governance/tool-names.ts';
import type { ToolTarget } from '../governance/tool-source.ts';
import { scopeFor } from '../identity/principals/scopes.ts';
import { withJsonText } from '../mcp/wire/json-text.ts';
import type { Agent } from '../model/governance.ts';
import { appMetaOf, appUriOnGateway, servedAppOf } from './served-apps.ts';

export class ToolViews {
  readonly #tools = new WeakMap<ToolTarget['action'], Map<string, Tool>>();
  readonly #lists = new WeakMap<GovernanceSnapshot, Map<string, Tool[]>>();

  /** The tools the agent may call at this revision; with their apps for a client that takes them. */
  listOf(snapshot: GovernanceSnapshot, agent: Agent, apps: boolean): Tool[] {
    let lists = this.#lists.get(snapshot);
    if (!lists) {
      lists = new Map();
      this.#lists.set(snapshot, lists);
    }
    const listKey = apps ? agent.id : `${agent.id}\nwithout apps`;
    let tools = lists.get(listKey);
    if (!tools) {
      tools = withJsonText(
        snapshot
          .visibleTools(agent)
          .map((target) => this.toolOf(target, apps ? snapshot : undefined)),
      );
      lists.set(listKey, tools);
    }
    return tools;
  }

  /** The tool as listed; given the snapshot it is listed at, with its app when that is served. */
  toolOf(target: ToolTarget, snapshot?: GovernanceSnapshot): Tool {
    const { connection, action } = target;
    let byName = this.#tools.get(action);
    if (!byName) {
      byName = new Map();
      this.#tools.set(action, byName);
    }
    const name = toolNameFor(connection, action.name);
    const app = snapshot && servedAppOf(snapshot, target);
    const shownUri = app && appUriOnGateway(target, app);
    const cacheKey = shownUri === undefined ? name : `${name}\n${shownUri}`;
    let tool = byName.get(cacheKey);
    if (!tool) {
      tool = {
        name,
        title: action.title,
        description: action.description,
        inputSchema: action.inputSchema as Tool['inputSchema'],
        annotations: { ...action.annotations },
        // What the OpenAI Apps SDK and other clients read: the scope this tool needs.
        securitySchemes: [{ type: 'oauth2', scopes: [scopeFor(action.classification)] }],
        ...(app && shownUri ? { _meta: appMetaOf(app, shownUri) } : {}),
      } as Tool;
      byName.set(cacheKey, tool);
    }
    return tool;
  }
}
