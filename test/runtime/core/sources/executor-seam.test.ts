import { randomBytes } from 'node:crypto';
/**
 * The executor seam: the governed call hands a transport-neutral call to the
 * executor of the target's source kind, whatever that source is, and keeps the
 * governance around it (decision, validation, audit, health). Here the source
 * and the executor are test ones, not REST.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import { Cancellation } from '../../../../runtime/core/base/cancellation.ts';
import { GatewayError } from '../../../../runtime/core/base/errors.ts';
import { hashKey } from '../../../../runtime/core/governance/keys.ts';
import type {
  GovernedAction,
  ToolSource,
} from '../../../../runtime/core/governance/tool-source.ts';
import { AgentKeys } from '../../../../runtime/core/identity/principals/agent-keys.ts';
import type { Caller } from '../../../../runtime/core/identity/principals/principals.ts';
import { Principals } from '../../../../runtime/core/identity/principals/principals.ts';
import type { ToolCall } from '../../../../runtime/core/mcp/server/tool-backend.ts';
import { AuditLog } from '../../../../runtime/core/pipeline/audit-log.ts';
import { GovernanceCache } from '../../../../runtime/core/pipeline/governance-cache.ts';
import { GovernedTools } from '../../../../runtime/core/pipeline/governed-tools.ts';
import { RevisionWatch } from '../../../../runtime/core/pipeline/revision-watch.ts';
import { ToolWatch } from '../../../../runtime/core/pipeline/tool-watch.ts';
import type { Store } from '../../../../runtime/core/ports/store.ts';
import type {
  ExecuteCall,
  Execution,
  Executor,
} from '../../../../runtime/core/sources/executor.ts';
import { Executors } from '../../../../runtime/core/sources/executor.ts';
import { TaskIds } from '../../../../runtime/core/tasks/task-ids.ts';
import { CredentialVault } from '../../../../runtime/core/vault/credential-vault.ts';
import { generateMasterKey, Keyring } from '../../../../runtime/core/vault/keyring.ts';
import {
  aConnection,
  aGrant,
  anAgent,
  aPolicy,
  aWorkspace,
} from '../../../support/store-fixtures.ts';

const KEY = 'pck_executor_seam_test_key';

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
    openWorldHint: true,
  },
  inputSchema: {
    type: 'object',
    properties: { word: { type: 'string' } },
    required: ['word'],
    additionalProperties: false,
  },
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

/** The answer of a source that works: the word, shouted. */
const shout = async (call: ExecuteCall): Promise<Execution> => ({
  outcome: { content: [{ type: 'text', text: String(call.arguments.word).toUpperCase() }] },
  host: 'test.example',
  address: null,
  upstreamStatus: null,
  requestBytes: 0,
  replyBytes: 0,
  health: 'success',
});

/** Records what it was handed and answers as told. */
class TestExecutor implements Executor {
  readonly kind = 'native_rest';
  readonly calls: ExecuteCall[] = [];
  answer: (call: ExecuteCall) => Promise<Execution> = shout;

  execute(call: ExecuteCall): Promise<Execution> {
    this.calls.push(call);
    return this.answer(call);
  }

  healthOutcomeOf(error: unknown) {
    return error instanceof GatewayError && error.code === 'upstream_unreachable'
      ? 'failure'
      : 'neutral';
  }
}

let store: Store;
let tools: GovernedTools;
let executor: TestExecutor;
let caller: Caller;

beforeAll(async () => {
  store = await openStore({ sqliteFile: ':memory:' });
  await store.workspaces.create(aWorkspace());
  await store.agents.create(anAgent(), hashKey(KEY));
  await store.connections.create(
    aConnection({ name: 'loud', provider: 'test-source', status: 'active' }),
  );
  await store.grants.create(aGrant({ scope: 'all' }));
  await store.policies.putMany([
    aPolicy({
      action: ACTION.name,
      state: 'enabled',
      classification: 'read',
      reviewedHash: ACTION.contractHash,
      currentHash: ACTION.contractHash,
    }),
  ]);
  const toolSources = { of: () => source };
  const governance = new GovernanceCache(store, toolSources);
  executor = new TestExecutor();
  tools = new GovernedTools({
    store,
    audit: new AuditLog(store),
    principals: new Principals(governance, [new AgentKeys()]),
    vault: new CredentialVault(new Keyring(generateMasterKey())),
    executors: new Executors([executor]),
    watch: new ToolWatch(new RevisionWatch(governance)),
    taskIds: new TaskIds({ keys: [randomBytes(32)] }),
  });
  caller = (await tools.authenticate(`Bearer ${KEY}`))!;
});

afterAll(() => store.close());
// Each test starts with a source that works; a test that makes it fail or ask says so itself.
beforeEach(() => {
  executor.answer = shout;
});

function call(args: Record<string, unknown>): ToolCall {
  return {
    name: 'loud__shout',
    arguments: args,
    era: 'modern',
    protocolVersion: '2026-07-28',
    clientCapabilities: { elicitation: {} },
    cancel: new Cancellation(),
    progress: () => {},
    log: () => {},
    trace: undefined,
    input: undefined,
  };
}

describe('the executor seam', () => {
  it('lists the source’s actions under the connection’s namespace', async () => {
    expect((await tools.listTools(caller)).map((tool) => tool.name)).toEqual(['loud__shout']);
  });

  it('hands the executor the target, the validated arguments and the call context, and audits what it did', async () => {
    const result = await tools.callTool(caller, call({ word: 'hi' }));
    expect(result).toEqual({ content: [{ type: 'text', text: 'HI' }] });
    const handed = executor.calls.at(-1)!;
    expect(handed.target.action).toBe(ACTION);
    expect(handed.target.source).toBe(source);
    expect(handed.arguments).toEqual({ word: 'hi' });
    expect(handed.credential).toBeUndefined();
    expect(handed.clientCapabilities).toEqual({ elicitation: {} });
    const [event] = await store.audit.query({ action: 'loud__shout' });
    expect(event).toMatchObject({
      decision: 'allowed',
      outcome: 'ok',
      upstreamHost: 'test.example',
    });
  });

  it('validates before executing: bad arguments never reach the executor', async () => {
    const before = executor.calls.length;
    await expect(tools.callTool(caller, call({ word: 7 }))).rejects.toMatchObject({
      code: 'arguments_invalid',
    });
    expect(executor.calls.length).toBe(before);
  });

  it('passes an executor’s input request through, and audits the call as allowed', async () => {
    executor.answer = async () => ({
      outcome: { resultType: 'input_required', inputRequests: {}, state: { step: 1 } },
      host: 'test.example',
      address: null,
      upstreamStatus: null,
      requestBytes: 0,
      replyBytes: 0,
      health: 'neutral',
    });
    expect(await tools.callTool(caller, call({ word: 'x' }))).toMatchObject({
      resultType: 'input_required',
      state: { step: 1 },
    });
  });

  it('asks the executor whether a failure counts against the connection', async () => {
    executor.answer = async () => {
      throw new GatewayError('upstream_unreachable', 'gone');
    };
    for (let n = 0; n < 2; n++) {
      await expect(tools.callTool(caller, call({ word: 'x' }))).rejects.toMatchObject({
        code: 'upstream_unreachable',
      });
    }
    expect((await store.connections.all())[0]).toMatchObject({
      health: 'degraded',
      failureStreak: 2,
    });
  });
});
