/**
 * The conformance suite's reference fixtures, as its everything-server
 * serves them (`test_simple_text`, `test://static-text`, `test_simple_prompt`,
 * completion of `test_prompt_with_arguments`, …), beside the 2026-07-28
 * fixtures of `ConformanceBackend` and the tasks extension's (`slow_compute`,
 * …, task-fixtures.ts): the upstream MCP server that Portcullis
 * forwards to in the conformance run (connected as a remote connection and
 * reached on `/mcp/c/<fixture>`), and the same server run directly.
 */
import type {
  CompleteResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/server';
import { GatewayError } from '../../../runtime/core/base/errors.ts';
import type {
  CompletionRequest,
  McpPrincipal,
  PromptOutcome,
  PromptRequest,
  ResourceOutcome,
  ResourceRequest,
  ResourceSubscription,
  ServedFeatures,
  SubscribeRequest,
  TaskRequest,
  ToolCall,
  ToolOutcome,
} from '../../../runtime/core/mcp/server/tool-backend.ts';
import type { TaskState } from '../../../runtime/core/mcp/wire/tasks.ts';
import { asking, ConformanceBackend, elicit, sample, text } from './conformance-backend.ts';
import { TASK_TOOLS, TaskFixtures } from './task-fixtures.ts';

/** A 1×1 red PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A WAV header with no samples. */
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';

const NO_ARGUMENTS = { type: 'object', properties: {} } as const;
const READ = { readOnlyHint: true } as const;

const TOOLS: Tool[] = [
  ['test_simple_text', 'Returns simple text'],
  ['test_image_content', 'Returns an image'],
  ['test_audio_content', 'Returns audio'],
  ['test_embedded_resource', 'Returns an embedded resource'],
  ['test_multiple_content_types', 'Returns text, an image and a resource'],
  ['test_tool_with_logging', 'Logs three messages while it runs'],
  ['test_tool_with_progress', 'Reports progress while it runs'],
  ['test_error_handling', 'Always fails'],
  ['test_elicitation_sep1034_defaults', 'Asks with defaults for every primitive type'],
  ['test_elicitation_sep1330_enums', 'Asks with every kind of enum'],
].map(([name, description]) => ({
  name: name!,
  description: description!,
  inputSchema: NO_ARGUMENTS,
  annotations: READ,
}));
TOOLS.push(
  {
    name: 'test_sampling',
    description: 'Asks the client to sample',
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string' } },
      required: ['prompt'],
    },
    annotations: READ,
  },
  {
    name: 'test_elicitation',
    description: 'Asks the user for input',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    },
    annotations: READ,
  },
);

const PROMPTS: Prompt[] = [
  { name: 'test_simple_prompt', description: 'A simple prompt' },
  {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
  },
  {
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource',
    arguments: [{ name: 'resourceUri', description: 'The resource to embed', required: true }],
  },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
];

const RESOURCES: Resource[] = [
  { uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', mimeType: 'text/plain' },
];

const TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: 'test://template/{id}/data',
    name: 'template-data',
    mimeType: 'application/json',
  },
];

const COMPLETIONS = ['paris', 'park', 'party', 'test', 'testing'];

export class EverythingBackend extends ConformanceBackend {
  /** Resources a session subscribed to, by URI. */
  readonly subscribed = new Set<string>();
  /** The tasks fixtures, their tasks in a store of their own (closed with `close`). */
  readonly tasks = new TaskFixtures();

  async serverCapabilities(): Promise<ServedFeatures> {
    // It takes resource subscriptions (`subscribeResource`), so it says so.
    return { prompts: true, resources: true, subscribe: true, completions: true };
  }

  override async listTools(): Promise<Tool[]> {
    return [...(await super.listTools()), ...TOOLS, ...TASK_TOOLS];
  }

  answerTask(principal: McpPrincipal, request: TaskRequest): Promise<TaskState | undefined> {
    return this.tasks.answer(principal, request);
  }

  override async listPrompts(): Promise<Prompt[]> {
    return [...(await super.listPrompts()), ...PROMPTS];
  }

  async listResources(): Promise<Resource[]> {
    return RESOURCES;
  }

  async listResourceTemplates(): Promise<ResourceTemplate[]> {
    return TEMPLATES;
  }

  override async callTool(principal: McpPrincipal, call: ToolCall): Promise<ToolOutcome> {
    if (this.tasks.handles(call.name)) return this.tasks.call(principal, call);
    const responses = call.input?.responses ?? {};
    switch (call.name) {
      case 'test_simple_text':
        return text('This is a simple text response for testing.');
      case 'test_image_content':
        return { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] };
      case 'test_audio_content':
        return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] };
      case 'test_embedded_resource':
        return {
          content: [
            {
              type: 'resource',
              resource: {
                uri: 'test://embedded-resource',
                mimeType: 'text/plain',
                text: 'This is an embedded resource content.',
              },
            },
          ],
        };
      case 'test_multiple_content_types':
        return {
          content: [
            { type: 'text', text: 'Multiple content types test:' },
            { type: 'image', data: PNG, mimeType: 'image/png' },
            {
              type: 'resource',
              resource: {
                uri: 'test://mixed-content-resource',
                mimeType: 'application/json',
                text: '{"test":"data","value":123}',
              },
            },
          ],
        };
      case 'test_tool_with_logging':
        call.log('info', 'Tool execution started');
        await pause(50);
        call.log('info', 'Tool processing data');
        await pause(50);
        call.log('info', 'Tool execution completed');
        return text('Tool with logging executed successfully');
      case 'test_tool_with_progress':
        call.progress(0, 100);
        await pause(50);
        call.progress(50, 100);
        await pause(50);
        call.progress(100, 100);
        return text('Tool with progress executed successfully');
      case 'test_error_handling':
        return {
          isError: true,
          content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
        };
      case 'test_sampling': {
        const answer = responses.sampled as { content?: { text?: unknown } } | undefined;
        if (answer) return text(`LLM response: ${String(answer.content?.text ?? '')}`);
        return asking({ sampled: sample(String(call.arguments?.prompt ?? ''), 100) });
      }
      case 'test_elicitation':
        if (responses.answer) return text(`User response: ${JSON.stringify(responses.answer)}`);
        return asking({
          answer: elicit(String(call.arguments?.message ?? ''), {
            type: 'object',
            properties: {
              username: { type: 'string', description: "User's response" },
              email: { type: 'string', description: "User's email address" },
            },
            required: ['username', 'email'],
          }),
        });
      case 'test_elicitation_sep1034_defaults':
        return elicited(responses.answer, {
          type: 'object',
          properties: {
            name: { type: 'string', default: 'John Doe' },
            age: { type: 'integer', default: 30 },
            score: { type: 'number', default: 95.5 },
            status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', default: true },
          },
        });
      case 'test_elicitation_sep1330_enums':
        return elicited(responses.answer, {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
        });
      default:
        return super.callTool(principal, call);
    }
  }

  override async getPrompt(
    principal: McpPrincipal,
    request: PromptRequest,
  ): Promise<PromptOutcome> {
    const args = request.arguments ?? {};
    switch (request.name) {
      case 'test_simple_prompt':
        return userText('This is a simple prompt for testing.');
      case 'test_prompt_with_arguments':
        return userText(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`);
      case 'test_prompt_with_embedded_resource':
        return {
          messages: [
            {
              role: 'user',
              content: {
                type: 'resource',
                resource: {
                  uri: args.resourceUri ?? 'test://example-resource',
                  mimeType: 'text/plain',
                  text: 'Embedded resource content for testing.',
                },
              },
            },
            {
              role: 'user',
              content: { type: 'text', text: 'Please process the embedded resource above.' },
            },
          ],
        };
      case 'test_prompt_with_image':
        return {
          messages: [
            { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
            { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
          ],
        };
      default:
        return super.getPrompt(principal, request);
    }
  }

  async readResource(_principal: McpPrincipal, request: ResourceRequest): Promise<ResourceOutcome> {
    const { uri } = request;
    if (uri === 'test://static-text' || uri === 'test://watched-resource')
      return contents({
        uri,
        mimeType: 'text/plain',
        text: 'This is the content of the static text resource.',
      });
    if (uri === 'test://static-binary') return contents({ uri, mimeType: 'image/png', blob: PNG });
    const id = /^test:\/\/template\/([^/]+)\/data$/.exec(uri)?.[1];
    if (id !== undefined)
      return contents({
        uri,
        mimeType: 'application/json',
        text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
      });
    throw new GatewayError('resource_not_found', undefined, { detail: { uri } });
  }

  async complete(_principal: McpPrincipal, request: CompletionRequest): Promise<CompleteResult> {
    const values = COMPLETIONS.filter((value) => value.startsWith(request.argument.value));
    return { completion: { values, total: values.length, hasMore: false } };
  }

  async subscribeResource(
    _principal: McpPrincipal,
    { uri }: SubscribeRequest,
  ): Promise<ResourceSubscription> {
    this.subscribed.add(uri);
    return { end: async () => void this.subscribed.delete(uri) };
  }
}

function elicited(answer: unknown, requestedSchema: object): ToolOutcome {
  if (answer === undefined)
    return asking({
      answer: elicit('Please review and update the form fields with defaults', requestedSchema),
    });
  const { action, content } = answer as { action?: unknown; content?: unknown };
  return text(
    `Elicitation completed: action=${String(action)}, content=${JSON.stringify(content ?? {})}`,
  );
}

function userText(value: string): PromptOutcome {
  return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
}

function contents(content: ReadResourceResult['contents'][number]): ReadResourceResult {
  return { contents: [content] };
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
