/**
 * A remote MCP server with tasks, built on the SDK v2 server package's
 * low-level `Server` (2.4.0 has the extension's wire types but no runtime
 * for it: `tasks/get`, `tasks/update` and `tasks/cancel` are handlers of
 * this file, registered with their own schemas, which is how the SDK lets
 * the extension reuse those names on 2026-07-28). Served on loopback as the
 * stateless 2026-07-28 handler or as a stateful 2025-11-25 server.
 *
 * Its tools start a task only for a request whose client declared the
 * extension (per request on 2026-07-28, in `initialize` on a session):
 * `report` works until the test finishes it (its result carries `secrets`,
 * as a careless server would echo credentials), `confirm_report` asks first,
 * `broken_report` ends with a result that is not a tool result; `rogue`
 * answers with a task whoever asks. Its tasks are its own, by its own ids,
 * in this process: any session finds them. (The SDK 2.4.0 checks each
 * tools/call result as a tool result, so a task it starts carries an empty
 * `content` too; and on a 2025-11-25 session it drops `resultType`, which
 * the extension needs there as well, so the stateful server's replies get
 * it back on their tasks, as a server of the extension sends them.)
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createMcpHandler,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

export type TaskUpstreamKind = 'modern' | 'stateful';

const TASKS = 'io.modelcontextprotocol/tasks';

interface UpstreamTask {
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  tool: string;
  topic: string;
  createdAt: string;
  lastUpdatedAt: string;
  result?: Record<string, unknown>;
  inputRequests?: Record<string, unknown>;
}

export interface TaskUpstream {
  url: string;
  /** Every request that reached the server: its method, the task it named, and whether its client declared tasks. */
  seen: Array<{ method: string; taskId?: string; declared: boolean }>;
  /** The server's own ids of the tasks it started, in order. */
  started: string[];
  /** Task ids the server was asked to cancel. */
  cancelled: string[];
  /** The answers `tasks/update` brought, by task id. */
  answers: Map<string, Record<string, unknown>>;
  /** Completes the task (`report`, `broken_report`). */
  finish(taskId: string): void;
  close(): Promise<void>;
}

export async function startTaskUpstream(
  kind: TaskUpstreamKind,
  options: { secrets: readonly string[] },
): Promise<TaskUpstream> {
  const tasks = new Map<string, UpstreamTask>();
  const seen: TaskUpstream['seen'] = [];
  const started: string[] = [];
  const cancelled: string[] = [];
  const answers = new Map<string, Record<string, unknown>>();
  const now = () => new Date().toISOString();
  const envelope = (taskId: string, task: UpstreamTask) => ({
    taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: 600_000,
    pollIntervalMs: 50,
    // Fields the extension does not have: a reader keeps none of them.
    requestState: 'server-state',
    ttl: 600_000,
  });
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

  const build = () => {
    const server = new Server(
      { name: `tasks-${kind}`, version: '1.0.0' },
      { capabilities: { tools: {}, extensions: { [TASKS]: {} } } as never },
    );
    const declared = (meta: unknown) => {
      const perRequest = (meta as Record<string, unknown> | undefined)?.[
        CLIENT_CAPABILITIES_META_KEY
      ] as { extensions?: Record<string, unknown> } | undefined;
      const capabilities = perRequest ?? server.getClientCapabilities();
      return (
        (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions?.[
          TASKS
        ] !== undefined
      );
    };
    server.setRequestHandler('tools/list', async () => ({
      tools: ['report', 'confirm_report', 'broken_report', 'rogue'].map((name) => ({
        name,
        description: `The ${name} job`,
        inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
        annotations: { readOnlyHint: true },
      })),
    }));
    server.setRequestHandler('tools/call', async (request) => {
      const { name } = request.params;
      const topic = String(request.params.arguments?.topic ?? 'nothing');
      const takesTasks = declared(request.params._meta);
      seen.push({ method: 'tools/call', declared: takesTasks });
      if (!takesTasks && name !== 'rogue') return text(`${name} on ${topic}, at once`);
      const taskId = `upstream-${randomUUID()}`;
      const task: UpstreamTask = {
        status: name === 'confirm_report' ? 'input_required' : 'working',
        tool: name,
        topic,
        createdAt: now(),
        lastUpdatedAt: now(),
      };
      if (name === 'confirm_report')
        task.inputRequests = {
          confirm: {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: `Report on ${topic}?`,
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
            },
          },
        };
      tasks.set(taskId, task);
      started.push(taskId);
      // The SDK checks every tools/call result as a tool result (it must have `content`);
      // a reader of the extension takes the task and ignores the rest.
      return { resultType: 'task', ...envelope(taskId, task), content: [] } as never;
    });
    const get = (taskId: string) => {
      const task = tasks.get(taskId);
      if (task === undefined) throw Object.assign(new Error('Task not found'), { code: -32602 });
      return task;
    };
    const TaskParams = z.object({ taskId: z.string() }).passthrough();
    server.setRequestHandler('tasks/get', { params: TaskParams }, async (params, ctx) => {
      seen.push({ method: 'tasks/get', taskId: params.taskId, declared: declared(params._meta) });
      void ctx;
      const task = get(params.taskId);
      return {
        resultType: 'complete',
        ...envelope(params.taskId, task),
        ...(task.result ? { result: task.result } : {}),
        ...(task.inputRequests ? { inputRequests: task.inputRequests } : {}),
      } as never;
    });
    server.setRequestHandler('tasks/update', { params: TaskParams }, async (params, ctx) => {
      seen.push({
        method: 'tasks/update',
        taskId: params.taskId,
        declared: declared(params._meta),
      });
      const task = get(params.taskId);
      // The SDK takes `inputResponses` out of the params as a multi round-trip request's own.
      const responses =
        (ctx.mcpReq as { inputResponses?: Record<string, unknown> }).inputResponses ??
        (params.inputResponses as Record<string, unknown> | undefined) ??
        {};
      answers.set(params.taskId, responses);
      if (task.status === 'input_required') {
        task.status = 'completed';
        task.inputRequests = undefined;
        task.result = text(`confirmed ${task.topic}: ${JSON.stringify(responses)}`);
        task.lastUpdatedAt = now();
      }
      return { resultType: 'complete' } as never;
    });
    server.setRequestHandler('tasks/cancel', { params: TaskParams }, async (params) => {
      seen.push({
        method: 'tasks/cancel',
        taskId: params.taskId,
        declared: declared(params._meta),
      });
      const task = get(params.taskId);
      cancelled.push(params.taskId);
      if (task.status === 'working' || task.status === 'input_required') {
        task.status = 'cancelled';
        task.lastUpdatedAt = now();
      }
      return { resultType: 'complete' } as never;
    });
    return server;
  };

  const modern =
    kind === 'modern' ? createMcpHandler(() => build(), { legacy: 'reject' }) : undefined;
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method!,
      headers: Object.entries(req.headers).flatMap(([k, v]) =>
        v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v] as [string, string]],
      ),
      ...(req.method === 'POST' ? { body } : {}),
    });
    let response: Response;
    if (modern) response = await modern.fetch(request);
    else {
      const sessionId = req.headers['mcp-session-id'] as string | undefined;
      let transport = sessionId ? transports.get(sessionId) : undefined;
      if (!transport && sessionId) {
        res.writeHead(404).end();
        return;
      }
      if (!transport) {
        transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, transport!),
          onsessionclosed: (id) => void transports.delete(id),
        });
        await build().connect(transport);
      }
      response = await transport.handleRequest(request);
      if (req.method === 'POST' && response.body) {
        res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
        res.end(withTaskDiscriminator(await response.text()));
        return;
      }
    }
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  };
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
        else res.end();
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    started,
    cancelled,
    answers,
    finish(taskId) {
      const task = tasks.get(taskId);
      if (task === undefined) throw new Error(`no task ${taskId}`);
      task.status = 'completed';
      task.lastUpdatedAt = now();
      task.result =
        task.tool === 'broken_report'
          ? { summary: 'no content array here' }
          : text(`report on ${task.topic}; the server knows ${options.secrets.join(' and ')}`);
    },
    async close() {
      for (const transport of transports.values()) await transport.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A reply (JSON, or an event stream's `data:` lines) whose task results say `resultType: "task"` again. */
function withTaskDiscriminator(body: string): string {
  const fix = (json: string) => {
    const message = JSON.parse(json) as { result?: Record<string, unknown> };
    const result = message.result;
    if (result && typeof result.taskId === 'string' && Array.isArray(result.content))
      message.result = { ...result, resultType: 'task' };
    return JSON.stringify(message);
  };
  if (body.startsWith('{')) return fix(body);
  return body
    .split('\n')
    .map((line) => (line.startsWith('data: {') ? `data: ${fix(line.slice(6))}` : line))
    .join('\n');
}
