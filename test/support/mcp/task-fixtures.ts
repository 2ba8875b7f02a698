/**
 * The conformance suite's tasks fixtures (the `tasks-*` scenarios of
 * 0.2.0-alpha.12 name them): `greet` (never a task), `slow_compute`
 * (`seconds` of work, cancellable), `failing_job` (a tool error; it needs
 * the extension), `protocol_error_job` (a JSON-RPC error), `confirm_delete`
 * and `multi_input` (they ask, with `input_required`), and
 * `test_tool_with_task` (asks first, multi round-trip, then starts a task).
 * Their tasks are the gateway's own recorded tasks (core/tasks), in an
 * in-memory store: a backend that mixes these in serves the extension as the
 * gateway does, every wire rule the endpoint's.
 */
import type { InputRequest, Tool } from '@modelcontextprotocol/server';
import { openStore } from '../../../runtime/adapters/sql/open-store.ts';
import { GatewayError } from '../../../runtime/core/base/errors.ts';
import type {
  McpPrincipal,
  TaskRequest,
  ToolCall,
  ToolOutcome,
} from '../../../runtime/core/mcp/server/tool-backend.ts';
import {
  declaresTasks,
  type TaskState,
  tasksRequired,
} from '../../../runtime/core/mcp/wire/tasks.ts';
import type { TaskRecord } from '../../../runtime/core/model/tasks.ts';
import type { Store } from '../../../runtime/core/ports/store.ts';
import { RecordedTasks } from '../../../runtime/core/tasks/recorded-tasks.ts';
import { TaskIds, type TaskOwner } from '../../../runtime/core/tasks/task-ids.ts';
import { asking, elicit, text } from './conformance-backend.ts';

const NO_ARGUMENTS = { type: 'object', properties: {} } as const;

export const TASK_TOOLS: Tool[] = [
  {
    name: 'greet',
    description: 'Greets someone (never a task)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
  },
  {
    name: 'slow_compute',
    description: 'Works for a number of seconds, as a task when the client takes tasks',
    inputSchema: {
      type: 'object',
      properties: { seconds: { type: 'number' }, label: { type: 'string' } },
    },
  },
  {
    name: 'failing_job',
    description: 'A task that ends in a tool error',
    inputSchema: NO_ARGUMENTS,
  },
  {
    name: 'protocol_error_job',
    description: 'A task that fails with a JSON-RPC error',
    inputSchema: NO_ARGUMENTS,
  },
  {
    name: 'confirm_delete',
    description: 'A task that asks to confirm before it deletes',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
  },
  {
    name: 'multi_input',
    description: 'A task that asks two things at once',
    inputSchema: NO_ARGUMENTS,
  },
  {
    name: 'test_tool_with_task',
    description: 'Asks a name (multi round-trip), then works on it as a task',
    inputSchema: NO_ARGUMENTS,
  },
];

const NAMES = new Set(TASK_TOOLS.map((tool) => tool.name));
const CONFIRM_FORM = {
  type: 'object',
  properties: { confirm: { type: 'boolean' }, name: { type: 'string' } },
} as const;

/** The fixture's own task id key: fixed, like its request-state key. */
const KEY = new Uint8Array(32).fill(9);

export class TaskFixtures {
  readonly #store: Promise<Store> = openStore({ sqliteFile: ':memory:' });
  readonly #ids = new TaskIds({ keys: [KEY] });
  /** Work under way, by task: what stops it. */
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** What each asking task still waits for, and what to do once it has it all. */
  readonly #asking = new Map<string, { left: Set<string>; finish: () => Promise<unknown> }>();
  readonly #tasks: Promise<RecordedTasks> = this.#store.then(
    (store) =>
      new RecordedTasks({
        rows: store.tasks,
        ids: this.#ids,
        reactions: {
          fixture: {
            cancelled: (task) => this.#stop(task),
            answered: (task, responses) => this.#answered(task, responses),
          },
        },
      }),
  );

  handles(name: string): boolean {
    return NAMES.has(name);
  }

  async call(principal: McpPrincipal, call: ToolCall): Promise<ToolOutcome> {
    const args = call.arguments ?? {};
    const tasked = declaresTasks(call.clientCapabilities);
    switch (call.name) {
      case 'greet':
        return text(`Hello, ${String(args.name ?? 'World')}!`);
      case 'slow_compute': {
        const seconds = typeof args.seconds === 'number' ? args.seconds : 1;
        const done = text(`computed ${String(args.label ?? '')} in ${seconds} s`);
        if (!tasked) {
          await pause(seconds * 1000);
          return done;
        }
        return this.#start(principal, call, (tasks, ref) =>
          this.#later(ref, seconds * 1000, () => tasks.complete(ref, done)),
        );
      }
      case 'failing_job':
        if (!tasked) throw needsTasks();
        return this.#start(principal, call, (tasks, ref) =>
          this.#later(ref, 100, () =>
            tasks.complete(ref, {
              isError: true,
              content: [{ type: 'text', text: 'the job failed' }],
            }),
          ),
        );
      case 'protocol_error_job':
        if (!tasked) throw needsTasks();
        return this.#start(principal, call, (tasks, ref) =>
          this.#later(ref, 100, () =>
            tasks.fail(ref, { code: -32603, message: 'Internal error: the job crashed' }),
          ),
        );
      case 'confirm_delete': {
        const file = String(args.filename ?? 'the file');
        // Without tasks it asks on the call itself (multi round-trip), and answers there.
        if (!tasked)
          return call.input?.responses.confirm
            ? text(`deleted ${file}`)
            : asking({ confirm: elicit(`Delete ${file}?`, CONFIRM_FORM) });
        return this.#ask(
          principal,
          call,
          { confirm: elicit(`Delete ${file}?`, CONFIRM_FORM) },
          () => text(`deleted ${file}`),
        );
      }
      case 'multi_input':
        if (!tasked) throw needsTasks();
        return this.#ask(
          principal,
          call,
          {
            first: elicit('First: your name?', CONFIRM_FORM),
            second: elicit('Second: confirm?', CONFIRM_FORM),
          },
          () => text('both answered'),
        );
      case 'test_tool_with_task': {
        if (!tasked) throw needsTasks();
        const answer = call.input?.responses.user_name as
          | { content?: { name?: unknown } }
          | undefined;
        if (answer === undefined)
          return asking({ user_name: elicit('What is your name?', CONFIRM_FORM) });
        const name = String(answer.content?.name ?? 'friend');
        return this.#start(principal, call, (tasks, ref) =>
          this.#later(ref, 100, () => tasks.complete(ref, text(`Hello, ${name}, from a task`))),
        );
      }
      default:
        throw new GatewayError('tool_unknown', 'no such tool');
    }
  }

  /** `tasks/*` for this fixture's tasks: the id opened for its caller, the store answers. */
  async answer(principal: McpPrincipal, request: TaskRequest): Promise<TaskState | undefined> {
    const ticket = this.#ids.open(ownerOf(principal), request.taskId);
    if (ticket === undefined) throw new GatewayError('task_not_found');
    return (await this.#tasks).answer(ticket, request);
  }

  async close(): Promise<void> {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    await (await this.#store).close();
  }

  async #start(
    principal: McpPrincipal,
    call: ToolCall,
    work: (tasks: RecordedTasks, ref: string) => unknown,
  ): Promise<ToolOutcome> {
    const tasks = await this.#tasks;
    const { ref, started } = await tasks.start(ownerOf(principal), {
      purpose: 'fixture',
      connectionId: 'fixture',
      action: call.name,
      pollIntervalMs: 100,
    });
    await work(tasks, ref);
    return started;
  }

  async #ask(
    principal: McpPrincipal,
    call: ToolCall,
    requests: Record<string, InputRequest>,
    result: () => ReturnType<typeof text>,
  ): Promise<ToolOutcome> {
    return this.#start(principal, call, (tasks, ref) => {
      this.#asking.set(ref, {
        left: new Set(Object.keys(requests)),
        finish: () => tasks.complete(ref, result()),
      });
      return tasks.askInput(ref, requests);
    });
  }

  #answered(task: TaskRecord, responses: Record<string, unknown>): void {
    const asking = this.#asking.get(task.ref);
    if (asking === undefined) return;
    for (const key of Object.keys(responses)) asking.left.delete(key);
    if (asking.left.size > 0) return;
    this.#asking.delete(task.ref);
    void asking.finish();
  }

  #later(ref: string, ms: number, then: () => Promise<unknown>): void {
    this.#timers.set(
      ref,
      setTimeout(() => {
        this.#timers.delete(ref);
        void then();
      }, ms),
    );
  }

  #stop(task: TaskRecord): void {
    clearTimeout(this.#timers.get(task.ref));
    this.#timers.delete(task.ref);
    this.#asking.delete(task.ref);
  }
}

function ownerOf(principal: McpPrincipal): TaskOwner {
  return {
    workspaceId: principal.workspaceId,
    agentId: principal.agentId,
    memberId: null,
    endpoint: '',
  };
}

/** What a client without the extension is told of a tool that only works as a task. */
function needsTasks(): GatewayError {
  return new GatewayError('client_capability_missing', 'this tool runs as a task only', {
    detail: tasksRequired(),
  });
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
