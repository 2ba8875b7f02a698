/**
 * A tool backend with the MCP conformance suite's 2026-07-28 fixtures (the
 * `test_input_required_result_*` tools and prompt, `test_missing_capability`,
 * the streaming, logging and list-change diagnostics, a tool with an
 * `x-mcp-header` parameter), behaving as the suite's reference server does, so
 * the suite can exercise what the endpoint itself must do: seal and check
 * `requestState`, refuse input the client cannot give, stream, filter log
 * messages, fan out list changes, check request headers. Only the tools live
 * here; every protocol rule is the endpoint's.
 */
import type { CallToolResult, GetPromptResult, Prompt, Tool } from '@modelcontextprotocol/server';
import { GatewayError } from '../../../runtime/core/base/errors.ts';
import { bearerToken } from '../../../runtime/core/governance/keys.ts';
import type {
  InputRequired,
  McpPrincipal,
  PromptOutcome,
  PromptRequest,
  ToolBackend,
  ToolCall,
  ToolOutcome,
} from '../../../runtime/core/mcp/server/tool-backend.ts';
import { FIXTURE_AGENTS } from './fixture-backend.ts';

const EMPTY = { type: 'object', properties: {} } as const;

const TOOLS: Tool[] = [
  ['test_missing_capability', 'Test tool requiring sampling'],
  ['test_input_required_result_elicitation', 'MRTR: asks for a name (elicitation)'],
  ['test_input_required_result_sampling', 'MRTR: asks for a completion (sampling)'],
  ['test_input_required_result_list_roots', 'MRTR: asks for the roots'],
  ['test_input_required_result_request_state', 'MRTR: asks to confirm, with state'],
  ['test_input_required_result_multiple_inputs', 'MRTR: asks for three inputs at once'],
  ['test_input_required_result_multi_round', 'MRTR: asks twice, one round after the other'],
  ['test_input_required_result_tampered_state', 'MRTR: state whose integrity is checked'],
  ['test_input_required_result_capabilities', 'MRTR: asks only for what the client can give'],
  ['test_streaming_elicitation', 'Streams progress, then asks for input'],
  ['test_logging_tool', 'Logs a message (only sent when the client asked for a level)'],
  ['test_trigger_tool_change', 'Announces that the tool list changed'],
  ['test_trigger_prompt_change', 'Announces that the prompt list changed (not subscribed here)'],
].map(([name, description]) => ({ name: name!, description: description!, inputSchema: EMPTY }));

TOOLS.push({
  name: 'test_header_param',
  description: 'Echoes its region, which also travels in the Mcp-Param-Region header',
  inputSchema: {
    type: 'object',
    properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
    required: ['region'],
  },
});

const PROMPTS: Prompt[] = [
  { name: 'test_input_required_result_prompt', description: 'MRTR: a prompt that needs context' },
];

const NAME_FORM = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
} as const;

export class ConformanceBackend implements ToolBackend {
  readonly #watchers = new Set<() => void>();
  readonly #byKey = new Map<string, McpPrincipal>(
    Object.values(FIXTURE_AGENTS).map(({ key, principal }) => [key, principal]),
  );

  authenticate(authorization: string | undefined): McpPrincipal | undefined {
    const token = bearerToken(authorization);
    return token === undefined ? undefined : this.#byKey.get(token);
  }

  async listTools(): Promise<Tool[]> {
    return TOOLS;
  }

  async listPrompts(): Promise<Prompt[]> {
    return PROMPTS;
  }

  watchTools(_principal: McpPrincipal, listener: () => void): () => void {
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  async getPrompt(_principal: McpPrincipal, request: PromptRequest): Promise<PromptOutcome> {
    if (request.name !== 'test_input_required_result_prompt') {
      throw new GatewayError('invalid_params', `Invalid params: no prompt ${request.name}`);
    }
    const answer = request.input?.responses.user_context;
    if (answer !== undefined) {
      const result: GetPromptResult = {
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: `Prompt with context: ${textOf(answer, 'context')}` },
          },
        ],
      };
      return result;
    }
    return asking({
      user_context: elicit('What context should the prompt use?', {
        type: 'object',
        properties: { context: { type: 'string' } },
        required: ['context'],
      }),
    });
  }

  async callTool(_principal: McpPrincipal, call: ToolCall): Promise<ToolOutcome> {
    const responses = call.input?.responses ?? {};
    const state = call.input?.state as Record<string, unknown> | null | undefined;
    switch (call.name) {
      case 'test_missing_capability':
        if (call.clientCapabilities.sampling === undefined) {
          throw new GatewayError('client_capability_missing', 'this tool needs sampling', {
            detail: { requiredCapabilities: { sampling: {} } },
          });
        }
        return text('Success');
      case 'test_input_required_result_elicitation':
        if (responses.user_name) return text(`Hello, ${textOf(responses.user_name, 'name')}!`);
        return asking({ user_name: elicit('What is your name?', NAME_FORM) });
      case 'test_input_required_result_sampling':
        if (responses.sample_request) {
          const content = (responses.sample_request as { content?: { text?: unknown } }).content;
          return text(
            `Sampling result: ${typeof content?.text === 'string' ? content.text : 'no response'}`,
          );
        }
        return asking({ sample_request: sample('What is the capital of France?', 100) });
      case 'test_input_required_result_list_roots':
        if (responses.roots_request)
          return text(`Found ${rootsOf(responses.roots_request)} root(s)`);
        return asking({ roots_request: { method: 'roots/list', params: {} } });
      case 'test_input_required_result_request_state':
        if (state?.kind === 'request-state' && okOf(responses.confirm)) {
          return text('state-ok: requestState validated');
        }
        return asking({ confirm: elicit('Please confirm', OK_FORM) }, { kind: 'request-state' });
      case 'test_input_required_result_multiple_inputs':
        if (
          state?.kind === 'multiple-inputs' &&
          responses.user_name &&
          responses.greeting &&
          responses.client_roots
        ) {
          const greeting = (responses.greeting as { content?: { text?: unknown } }).content?.text;
          return text(
            `Name: ${textOf(responses.user_name, 'name')}; Greeting: ${typeof greeting === 'string' ? greeting : 'Hello there!'}; Roots: ${rootsOf(responses.client_roots)}`,
          );
        }
        return asking(
          {
            user_name: elicit('What is your name?', NAME_FORM),
            greeting: sample('Generate a greeting', 50),
            client_roots: { method: 'roots/list', params: {} },
          },
          { kind: 'multiple-inputs' },
        );
      case 'test_input_required_result_multi_round':
        if (state?.round === 1 && responses.step1) {
          return asking(
            {
              step2: elicit('Step 2: What is your favorite color?', {
                type: 'object',
                properties: { color: { type: 'string' } },
                required: ['color'],
              }),
            },
            { round: 2, name: textOf(responses.step1, 'name') },
          );
        }
        if (state?.round === 2 && responses.step2) {
          const name = typeof state.name === 'string' ? state.name : 'friend';
          return text(
            `Multi-round complete for ${name} who likes ${textOf(responses.step2, 'color')}`,
          );
        }
        return asking({ step1: elicit('Step 1: What is your name?', NAME_FORM) }, { round: 1 });
      case 'test_input_required_result_tampered_state':
        // The endpoint has already refused a state that fails its check.
        if (state?.kind === 'tamper-test' && responses.confirm) {
          return text('integrity-ok: state verified');
        }
        return asking({ confirm: elicit('Please confirm', OK_FORM) }, { kind: 'tamper-test' });
      case 'test_input_required_result_capabilities':
        return this.#capabilities(call);
      case 'test_streaming_elicitation':
        call.progress(50, 100, 'halfway');
        if (responses.confirm) return text('Streaming complete');
        return asking({ confirm: elicit('Please confirm', OK_FORM) });
      case 'test_logging_tool':
        call.log('info', 'Diagnostic trace logging activated');
        return text('Logging evaluated');
      case 'test_trigger_tool_change':
        for (const listener of this.#watchers) listener();
        return text('Mutation triggered');
      case 'test_trigger_prompt_change':
        return text('Mutation triggered');
      case 'test_header_param':
        return text(`region ${String(call.arguments?.region)}`);
      default:
        throw new GatewayError('tool_unknown', 'no such tool');
    }
  }

  #capabilities(call: ToolCall): ToolOutcome {
    const responses = call.input?.responses ?? {};
    if (Object.keys(responses).length > 0) {
      return text(`capabilities-ok: received ${Object.keys(responses).join(',')}`);
    }
    const requests: NonNullable<InputRequired['inputRequests']> = {};
    if (call.clientCapabilities.elicitation) {
      requests.elicit_input = elicit('Elicitation input', {
        type: 'object',
        properties: { value: { type: 'string' } },
        required: ['value'],
      });
    }
    if (call.clientCapabilities.sampling) requests.sample_input = sample('Sample request', 50);
    if (Object.keys(requests).length === 0) return text('No supported capabilities declared');
    return asking(requests, { kind: 'capabilities-test' });
  }
}

const OK_FORM = {
  type: 'object',
  properties: { ok: { type: 'boolean' } },
  required: ['ok'],
} as const;

export function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

export function asking(
  inputRequests: NonNullable<InputRequired['inputRequests']>,
  state?: Record<string, string | number>,
): InputRequired {
  return { resultType: 'input_required', inputRequests, ...(state ? { state } : {}) };
}

export function elicit(message: string, requestedSchema: object) {
  return {
    method: 'elicitation/create',
    params: { mode: 'form', message, requestedSchema },
  } as NonNullable<InputRequired['inputRequests']>[string];
}

export function sample(prompt: string, maxTokens: number) {
  return {
    method: 'sampling/createMessage',
    params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens },
  } as NonNullable<InputRequired['inputRequests']>[string];
}

function textOf(answer: unknown, field: string): string {
  const value = (answer as { content?: Record<string, unknown> } | undefined)?.content?.[field];
  return typeof value === 'string' ? value : 'unknown';
}

function okOf(answer: unknown): boolean {
  return (answer as { content?: { ok?: unknown } } | undefined)?.content?.ok === true;
}

function rootsOf(answer: unknown): number {
  const roots = (answer as { roots?: unknown } | undefined)?.roots;
  return Array.isArray(roots) ? roots.length : 0;
}
