import { randomBytes } from 'node:crypto';
/**
 * The gateway's `tasks/*`, on `/mcp` and `/mcp/c/<connection>`: a recorded
 * task (what an in-process producer such as a call held for approval makes)
 * is found only by the agent and on the endpoint that started it, every
 * request is decided again like the call (grant, connection) and leaves one
 * audit event naming the task, and the producer's settlement is what the
 * client reads. The endpoints are the real ones, over the real pipeline.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import { GatewayError } from '../../../../runtime/core/base/errors.ts';
import { hashKey } from '../../../../runtime/core/governance/keys.ts';
import type {
  GovernedAction,
  ToolSource,
} from '../../../../runtime/core/governance/tool-source.ts';
import { AgentKeys } from '../../../../runtime/core/identity/principals/agent-keys.ts';
import { Principals } from '../../../../runtime/core/identity/principals/principals.ts';
import { AuditLog } from '../../../../runtime/core/pipeline/audit-log.ts';
import { ConnectionTools } from '../../../../runtime/core/pipeline/connection-tools.ts';
import { GovernanceCache } from '../../../../runtime/core/pipeline/governance-cache.ts';
import { GovernedTools } from '../../../../runtime/core/pipeline/governed-tools.ts';
import { RevisionWatch } from '../../../../runtime/core/pipeline/revision-watch.ts';
import { taskOwnerOf } from '../../../../runtime/core/pipeline/task-requests.ts';
import { ToolWatch } from '../../../../runtime/core/pipeline/tool-watch.ts';
import type { Store } from '../../../../runtime/core/ports/store.ts';
import { Executors } from '../../../../runtime/core/sources/executor.ts';
import { TaskIds } from '../../../../runtime/core/tasks/task-ids.ts';
import { CredentialVault } from '../../../../runtime/core/vault/credential-vault.ts';
import { generateMasterKey, Keyring } from '../../../../runtime/core/vault/keyring.ts';
import { type McpTestServer, startMcpServer } from '../../../support/mcp/fixture-server.ts';
import { ACCEPT_BOTH, modern, modernMeta } from '../../../support/mcp/raw-http.ts';
import {
  aConnection,
  aGrant,
  anAgent,
  aPolicy,
  aWorkspace,
  T1,
} from '../../../support/store-fixtures.ts';

const ACTION: GovernedAction = {
  name: 'shout',
  title: 'Shout',
  description: 'Says a word loudly',
  classification: 'read',
  annotations: {
    title: 'Shout',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  inputSchema: { type: 'object', properties: {} },
  contractHash: 'sha256:test-contract',
};
const ajv = new Ajv2020({ strict: true });
const source: ToolSource = {
  kind: 'native_rest',
  actions: [ACTION],
  action: (name) => (name === ACTION.name ? ACTION : undefined),
  validatorFor: () => ajv.compile(ACTION.inputSchema),
  sendsCredential: () => false,
};
const TASKS = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };
/** The agents: each test has its own, so none depends on another's changes. */
const AGENTS = ['owner', 'other', 'revoked', 'disabled', 'cancels'] as const;
type AgentName = (typeof AGENTS)[number];
const keyOf = (agent: AgentName) => `pck_task_requests_${agent}_key`;

let store: Store;
let tools: GovernedTools;
let mcp: McpTestServer<GovernedTools>;
let perConnection: McpTestServer<ConnectionTools>;

beforeAll(async () => {
  store = await openStore({ sqliteFile: ':memory:' });
  await store.workspaces.create(aWorkspace());
  for (const [id, name] of [
    ['conn_1', 'loud'],
    ['conn_2', 'quiet'],
  ] as const) {
    await store.connections.create(
      aConnection({ id, name, provider: 'test-source', status: 'active' }),
    );
    await store.policies.putMany([
      aPolicy({
        connectionId: id,
        action: ACTION.name,
        reviewedHash: ACTION.contractHash,
        currentHash: ACTION.contractHash,
      }),
    ]);
  }
  for (const agent of AGENTS) {
    await store.agents.create(anAgent({ id: `agt_${agent}`, name: agent }), hashKey(keyOf(agent)));
    const connectionId = agent === 'disabled' ? 'conn_2' : 'conn_1';
    await store.grants.create(
      aGrant({ id: `grt_${agent}`, agentId: `agt_${agent}`, connectionId }),
    );
  }
  const governance = new GovernanceCache(store, { of: () => source });
  tools = new GovernedTools({
    store,
    audit: new AuditLog(store),
    principals: new Principals(governance, [new AgentKeys()]),
    vault: new CredentialVault(new Keyring(generateMasterKey())),
    executors: new Executors([]),
    watch: new ToolWatch(new RevisionWatch(governance)),
    taskIds: new TaskIds({ keys: [randomBytes(32)] }),
  });
  mcp = await startMcpServer(tools);
  perConnection = await startMcpServer(new ConnectionTools(tools, 'loud'));
});

afterAll(async () => {
  await mcp?.close();
  await perConnection?.close();
  await store?.close();
});

/** A task recorded for `agent`'s call of `<connection>__shout`, started on `endpoint`. */
async function started(agent: AgentName, connection = 'loud', endpoint = '') {
  const caller = (await tools.authenticate(`Bearer ${keyOf(agent)}`, endpoint || undefined))!;
  const connectionId = connection === 'loud' ? 'conn_1' : 'conn_2';
  return tools.tasks.start(taskOwnerOf(caller, endpoint), {
    purpose: 'test',
    connectionId,
    action: `${connection}__shout`,
    statusMessage: 'waiting for an approver',
  });
}

/** `agent`'s modern `method` on `server`: the JSON-RPC reply. */
async function ask(
  server: McpTestServer<GovernedTools | ConnectionTools>,
  agent: AgentName,
  method: string,
  taskId: string,
) {
  const { body, headers } = modern(
    method,
    { taskId, ...(method === 'tasks/update' ? { inputResponses: {} } : {}) },
    {
      meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': TASKS }),
    },
  );
  const reply = await fetch(server.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${keyOf(agent)}`,
      'content-type': 'application/json',
      accept: ACCEPT_BOTH,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return (await reply.json()) as {
    result?: Record<string, unknown>;
    error?: Record<string, unknown>;
  };
}

describe('tasks/* on the gateway', () => {
  it('reports a recorded task to its caller as the producer settles it, each poll audited naming it', async () => {
    const { ref, started: task } = await started('owner');
    expect(await ask(mcp, 'owner', 'tasks/get', task.taskId)).toMatchObject({
      result: { taskId: task.taskId, status: 'working', statusMessage: 'waiting for an approver' },
    });
    expect(await tools.tasks.complete(ref, { content: [{ type: 'text', text: 'done' }] })).toBe(
      true,
    );
    expect(await ask(mcp, 'owner', 'tasks/get', task.taskId)).toMatchObject({
      result: { status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } },
    });
    const events = await store.audit.query({
      action: 'tasks/get loud__shout',
      actorId: 'agt_owner',
    });
    expect(events).toHaveLength(2);
    for (const event of events)
      expect(event).toMatchObject({
        decision: 'allowed',
        outcome: 'ok',
        subject: `task:${ref}`,
        connectionId: 'conn_1',
      });
    // The id the client holds is in no event.
    expect(JSON.stringify(events)).not.toContain(task.taskId);
  });

  it("answers another agent's id, an id of another endpoint and a forged one alike, and audits each", async () => {
    const { started: task } = await started('owner');
    const { started: there } = await started('owner', 'loud', 'loud');
    const forged = `pct1.${randomBytes(150).toString('base64url')}`;
    const refusals = [
      await ask(mcp, 'other', 'tasks/get', task.taskId),
      await ask(mcp, 'other', 'tasks/cancel', task.taskId),
      await ask(mcp, 'owner', 'tasks/get', there.taskId),
      await ask(perConnection, 'owner', 'tasks/get', task.taskId),
      await ask(mcp, 'other', 'tasks/get', forged),
    ];
    for (const refusal of refusals) expect(refusal.error).toEqual(refusals[0]!.error);
    expect(refusals[0]!.error).toMatchObject({ code: -32602 });
    // Each endpoint finds its own.
    expect((await ask(perConnection, 'owner', 'tasks/get', there.taskId)).result?.status).toBe(
      'working',
    );
    expect((await ask(mcp, 'owner', 'tasks/get', task.taskId)).result?.status).toBe('working');
    const unknown = await store.audit.query({ action: 'tasks/get', actorId: 'agt_other' });
    expect(unknown).toHaveLength(2);
    for (const event of unknown)
      expect(event).toMatchObject({ decision: 'denied', reason: 'task_not_found', subject: null });
  });

  it('refuses the requests of a caller whose grant is gone, as a call would be', async () => {
    const { ref, started: task } = await started('revoked');
    await store.grants.remove('ws_1', 'grt_revoked');
    const refused = await ask(mcp, 'revoked', 'tasks/get', task.taskId);
    expect(refused.error?.data).toMatchObject({ error: { code: 'not_granted' } });
    const [event] = await store.audit.query({
      actorId: 'agt_revoked',
      action: 'tasks/get loud__shout',
    });
    expect(event).toMatchObject({
      decision: 'denied',
      reason: 'not_granted',
      subject: `task:${ref}`,
    });
  });

  it('refuses the requests for a task of a connection no longer active', async () => {
    const { started: task } = await started('disabled', 'quiet');
    expect((await ask(mcp, 'disabled', 'tasks/get', task.taskId)).result?.status).toBe('working');
    await store.connections.update('ws_1', 'conn_2', { status: 'disabled', updatedAt: T1 });
    const refused = await ask(mcp, 'disabled', 'tasks/get', task.taskId);
    expect(refused.error?.data).toMatchObject({ error: { code: 'connection_inactive' } });
  });

  it('cancels: the task is over for the producer too, and a failure is carried with its reason code', async () => {
    const { ref, started: task } = await started('cancels');
    expect((await ask(mcp, 'cancels', 'tasks/cancel', task.taskId)).result).toMatchObject({
      resultType: 'complete',
    });
    expect((await ask(mcp, 'cancels', 'tasks/get', task.taskId)).result?.status).toBe('cancelled');
    expect(await tools.tasks.complete(ref, { content: [] })).toBe(false);

    const failing = await started('cancels');
    await tools.tasks.fail(failing.ref, new GatewayError('action_disabled', 'ask an operator'));
    expect((await ask(mcp, 'cancels', 'tasks/get', failing.started.taskId)).result).toMatchObject({
      status: 'failed',
      error: {
        code: -32000,
        message: 'ask an operator',
        data: { error: { code: 'action_disabled' } },
      },
    });
  });
});
