/**
 * The three tools an agent in discovery mode is served instead of its
 * catalog: their definitions as `tools/list` shows them, and what
 * `search_actions` replies. Describing and calling go through the pipeline's
 * own `describeTool` and governed call under the action's real name, so
 * nothing here decides who may call what.
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { Classification } from '../../../generated/catalog-format.ts';
import { CALL_ACTION, DESCRIBE_ACTION, SEARCH_ACTIONS } from '../governance/reserved-names.ts';
import type { SearchRequest, SearchResult } from './action-index.ts';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from './action-index.ts';

export { CALL_ACTION, DESCRIBE_ACTION, SEARCH_ACTIONS };

const CLASSES = ['read', 'write', 'destructive'] as const;

const searchActionsTool = {
  name: SEARCH_ACTIONS,
  title: 'Search actions',
  description:
    'Finds the actions you may call, best first, from a few words of what you want to do (for example "stop an instance" or "list pull requests"). ' +
    'Read the best match with describe_action, then run it with call_action under its exact action name.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What you want to do, in a few words.' },
      connection: { type: 'string', description: "Only this connection's actions." },
      class: {
        type: 'string',
        enum: [...CLASSES],
        description: 'Only reads, writes or destructive actions.',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: SEARCH_LIMIT_MAX,
        default: SEARCH_LIMIT_DEFAULT,
        description: 'How many results at most.',
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      results: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            action: { type: 'string' },
            connection: { type: 'string' },
            class: { type: 'string', enum: [...CLASSES] },
            title: { type: 'string' },
            summary: { type: 'string' },
            score: { type: 'number' },
          },
          required: ['action', 'connection', 'class', 'title', 'summary', 'score'],
        },
      },
      hint: { type: 'string' },
    },
    required: ['results'],
  },
  annotations: {
    title: 'Search actions',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
} satisfies Tool;

const describeActionTool = {
  name: DESCRIBE_ACTION,
  title: 'Describe an action',
  description:
    'Shows one action found by search_actions as its tool: title, description, class, input schema and output schema. ' +
    'Build the arguments from its input schema before you run it with call_action.',
  inputSchema: {
    type: 'object',
    properties: {
      action: { type: 'string', description: 'The action name search_actions gave.' },
    },
    required: ['action'],
    additionalProperties: false,
  },
  annotations: {
    title: 'Describe an action',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
} satisfies Tool;

const callActionTool = {
  name: CALL_ACTION,
  title: 'Call an action',
  description:
    'Runs one action by its exact name with arguments that match its input schema, and returns what the action returns. ' +
    'It is governed like a direct call of that action: a refusal names its reason, and a missing scope asks you to sign in again with it.',
  inputSchema: {
    type: 'object',
    properties: {
      action: { type: 'string', description: 'The action name search_actions gave.' },
      arguments: {
        type: 'object',
        description: "The action's arguments, as its input schema describes them ({} for none).",
      },
    },
    required: ['action', 'arguments'],
    additionalProperties: false,
  },
  annotations: {
    title: 'Call an action',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
} satisfies Tool;

/** The three tools, in the order `tools/list` shows them. */
export const DISCOVERY_TOOLS: readonly Tool[] = [
  searchActionsTool,
  describeActionTool,
  callActionTool,
];

/** What `search_actions` returns: the results as structured content, and the same as text. */
export interface SearchReply {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: { results: SearchResult[]; hint?: string };
}

/**
 * The reply of a search. No result says so, and how to search more broadly
 * (fewer or more general words, without the filters it used).
 */
export function searchReply(request: SearchRequest, results: SearchResult[]): SearchReply {
  if (results.length > 0) {
    const structuredContent = { results };
    return {
      content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
      structuredContent,
    };
  }
  const filters = [
    request.connection === undefined ? undefined : `connection "${request.connection}"`,
    request.class === undefined ? undefined : `class "${request.class}"`,
  ].filter((filter) => filter !== undefined);
  const hint =
    `No action you may call matches "${request.query}"${filters.length > 0 ? ` with ${filters.join(' and ')}` : ''}. ` +
    'Try a broader query: fewer words, or the thing you want to act on (such as "instance", "sandbox" or "issue")' +
    (filters.length > 0 ? `, without ${filters.join(' or ')}.` : '.');
  return {
    content: [{ type: 'text', text: hint }],
    structuredContent: { results: [], hint },
  };
}

/** What `describe_action` returns: the tool as `tools/list` shows it, with its class. */
export interface DescribeReply {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: {
    action: string;
    class: Classification;
    title: string;
    description: string;
    inputSchema: Tool['inputSchema'];
    outputSchema?: Tool['outputSchema'];
    annotations?: Tool['annotations'];
  };
}

/**
 * The reply of `describe_action` for a tool the caller may call (the
 * pipeline's `describeTool`, so exactly as its `tools/list` shows it).
 */
export function describeReply(tool: Tool, classification: Classification): DescribeReply {
  const structuredContent: DescribeReply['structuredContent'] = {
    action: tool.name,
    class: classification,
    title: tool.title ?? tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
  return {
    content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
    structuredContent,
  };
}
