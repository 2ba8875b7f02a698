/**
 * A small tool backend for the MCP endpoint's tests and the conformance
 * harness: two agents with API keys, and tools that exercise the endpoint's
 * paths (a result, a refusal, a crash, a call that waits to be aborted, one
 * that reports progress, one that asks for input before it answers).
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { CancelSignal } from '../../../runtime/core/base/cancellation.ts';
import { GatewayError } from '../../../runtime/core/base/errors.ts';
import { bearerToken } from '../../../runtime/core/governance/keys.ts';
import type {
  McpPrincipal,
  ToolBackend,
  ToolCall,
  ToolOutcome,
} from '../../../runtime/core/mcp/server/tool-backend.ts';

export const FIXTURE_AGENTS = {
  alice: { key: 'pk_test_alice_7b1f0c', principal: { agentId: 'agt_alice', workspaceId: 'ws_1' } },
  bob: { key: 'pk_test_bob_29de44', principal: { agentId: 'agt_bob', workspaceId: 'ws_1' } },
} as const satisfies Record<string, { key: string; principal: McpPrincipal }>;

export type FixtureAgent = keyof typeof FIXTURE_AGENTS;

/** A message the `crash` tool throws; it must never reach a client. */
export const CRASH_SECRET = 'db password hunter2';

const TOOLS: Tool[] = [
  {
    name: 'echo',
    description: 'Returns its arguments, after `delayMs` milliseconds when given.',
    inputSchema: {
      type: 'object',
      properties: { delayMs: { type: 'integer', minimum: 0 } },
      additionalProperties: true,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'refuse',
    description: 'Always refused with the reason code not_granted.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'crash',
    description: 'Always fails with an internal error.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'hold',
    description: 'Runs until the call is aborted; `tag` names it.',
    inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
  },
  {
    name: 'count',
    description: 'Reports progress `steps` times (a few ms apart), then answers.',
    inputSchema: { type: 'object', properties: { steps: { type: 'integer', minimum: 1 } } },
  },
  {
    name: 'ask',
    description: 'Asks for a name (elicitation) and greets it; keeps `nonce` as its state.',
    inputSchema: { type: 'object', properties: { nonce: { type: 'string' } } },
  },
];

export class FixtureBackend implements ToolBackend {
  /** Agents whose key no longer works. */
  readonly revoked = new Set<string>();
  /** Tags of `hold` calls now running, and of those that saw themselves cancelled. */
  readonly holding = new Set<string>();
  readonly aborted = new Set<string>();
  readonly #byKey = new Map<string, McpPrincipal>(
    Object.values(FIXTURE_AGENTS).map(({ key, principal }) => [key, principal]),
  );

  authenticate(authorization: string | undefined): McpPrincipal | undefined {
    const token = bearerToken(authorization);
    const principal = token === undefined ? undefined : this.#byKey.get(token);
    return principal && !this.revoked.has(principal.agentId) ? principal : undefined;
  }

  async listTools(_principal: McpPrincipal): Promise<Tool[]> {
    return TOOLS;
  }

  /** `count` calls that stopped because they were cancelled. */
  countsCancelled = 0;

  async #count(call: ToolCall): Promise<CallToolResult> {
    const steps = typeof call.arguments?.steps === 'number' ? call.arguments.steps : 3;
    for (let step = 1; step <= steps; step++) {
      await delay(5, call.cancel);
      if (call.cancel.cancelled) {
        this.countsCancelled++;
        throw new GatewayError('upstream_timeout', 'the call was cancelled');
      }
      call.progress(step, steps, `step ${step}`);
      call.log('info', { step });
    }
    return { content: [{ type: 'text', text: `counted to ${steps}` }] };
  }

  /** Listeners of `watchTools`, so a test can announce a change. */
  readonly watchers = new Set<() => void>();

  watchTools(_principal: McpPrincipal, listener: () => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /** Tells every listener that the tools changed. */
  announceChange(): void {
    for (const listener of this.watchers) listener();
  }

  async callTool(principal: McpPrincipal, call: ToolCall): Promise<ToolOutcome> {
    const { name, arguments: args, cancel } = call;
    switch (name) {
      case 'echo': {
        const delayMs = args?.delayMs;
        if (typeof delayMs === 'number' && delayMs > 0) await delay(delayMs, cancel);
        return {
          content: [{ type: 'text', text: JSON.stringify(args ?? {}) }],
          structuredContent: { agentId: principal.agentId, arguments: args ?? {} },
        };
      }
      case 'refuse':
        throw new GatewayError('not_granted', 'this agent has no grant for this action', {
          field: '/name',
        });
      case 'crash':
        throw new Error(CRASH_SECRET);
      case 'hold':
        return this.#hold(String(args?.tag), cancel);
      case 'count':
        return this.#count(call);
      case 'ask':
        return ask(call);
      default:
        throw new GatewayError('tool_unknown', 'no such tool');
    }
  }

  async #hold(tag: string, cancel: CancelSignal): Promise<CallToolResult> {
    this.holding.add(tag);
    try {
      await new Promise<void>((resolve) => cancel.onCancel(resolve));
      this.aborted.add(tag);
      throw new GatewayError('upstream_timeout', 'the call was cancelled');
    } finally {
      this.holding.delete(tag);
    }
  }
}

/** The elicitation every fixture that greets by name sends. */
export const NAME_QUESTION: {
  message: string;
  requestedSchema: {
    type: 'object';
    properties: { name: { type: 'string' } };
    required: string[];
  };
} = {
  message: 'What is your name?',
  requestedSchema: {
    type: 'object',
    properties: { name: { type: 'string' } },
    required: ['name'],
  },
};

/** Asks for a name, then greets it; the state it gets back is the nonce it was called with. */
function ask(call: ToolCall): ToolOutcome {
  const answer = call.input?.responses.name as
    | { action?: string; content?: { name?: unknown } }
    | undefined;
  if (answer?.action === 'accept' && typeof answer.content?.name === 'string') {
    return {
      content: [{ type: 'text', text: `Hello, ${answer.content.name}!` }],
      structuredContent: { greeted: answer.content.name, state: call.input?.state ?? null },
    };
  }
  return {
    resultType: 'input_required',
    inputRequests: {
      name: {
        method: 'elicitation/create',
        params: NAME_QUESTION,
      },
    },
    state: { nonce: typeof call.arguments?.nonce === 'string' ? call.arguments.nonce : null },
  };
}

/** Waits `ms`, or less when the call is cancelled first. */
function delay(ms: number, cancel: CancelSignal): Promise<void> {
  return new Promise((resolve) => {
    let stop = () => {};
    const timer = setTimeout(done, ms);
    stop = cancel.onCancel(done);
    function done(): void {
      clearTimeout(timer);
      stop();
      resolve();
    }
  });
}
