import { randomBytes } from 'node:crypto';
/**
 * One decision per call, on both wires: the 2026-07-28 wire decides a
 * `tools/call` first (to check its `Mcp-Param` headers against the tool the
 * caller sees) and the call reuses that decision; `/mcp/c/<connection>`
 * passes it through under the server's name. Counted at the snapshot's tool
 * lookup, which every decision on a tool call makes once.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import { Cancellation } from '../../../../runtime/core/base/cancellation.ts';
import { hashKey } from '../../../../runtime/core/governance/keys.ts';
import { GovernanceSnapshot } from '../../../../runtime/core/governance/snapshot.ts';
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
import { ToolWatch } from '../../../../runtime/core/pipeline/tool-watch.ts';
import type { Store } from '../../../../runtime/core/ports/store.ts';
import { type Executor, Executors } from '../../../../runtime/core/sources/executor.ts';
import { TaskIds } from '../../../../runtime/core/tasks/task-ids.ts';
import { CredentialVault } from '../../../../runtime/core/vault/credential-vault.ts';
import { generateMasterKey, Keyring } from '../../../../runtime/core/vault/keyring.ts';
import { type McpTestServer, startMcpServer } from '../../../support/mcp/fixture-server.ts';
import { modernToolCall } from '../../../support/mcp/raw-http.ts';
import {
  aConnection,
  aGrant,
  anAgent,
  aPolicy,
  aWorkspace,
} from '../../../support/store-fixtures.ts';

const KEY = 'pck_one_decision_test_key';
/** An agent in discovery mode, granted the same. */
const FINDER_KEY = 'pck_one_decision_finder_key';

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
  inputSchema: { type: 'object', additionalProperties: false },
  contractHash: 'sha256:one-decision',
};

const source: ToolSource = {
  kind: 'native_rest',
  actions: [ACTION],
  action: (name) => (name === ACTION.name ? ACTION : undefined),
  validatorFor: () => new Ajv2020({ strict: true }).compile(ACTION.inputSchema),
  sendsCredential: () => false,
};

const executor: Executor = {
  kind: 'native_rest',
  execute: async () => ({
    outcome: { content: [{ type: 'text', text: 'HEARD' }] },
    host: 'test.example',
    address: null,
    upstreamStatus: null,
    requestBytes: 0,
    replyBytes: 0,
    health: 'success',
  }),
  healthOutcomeOf: () => 'neutral',
};

let store: Store;
let tools: GovernedTools;
const servers: Array<McpTestServer<GovernedTools | ConnectionTools>> = [];

beforeAll(async () => {
  store = await openStore({ sqliteFile: ':memory:' });
  await store.workspaces.create(aWorkspace());
  await store.agents.create(anAgent(), hashKey(KEY));
  await store.connections.create(
    aConnection({ name: 'loud', provider: 'test-source', status: 'active' }),
  );
  await store.grants.create(aGrant({ scope: 'all' }));
  await store.agents.create(
    anAgent({ id: 'agt_finder', name: 'finder', toolsMode: 'discovery' }),
    hashKey(FINDER_KEY),
  );
  await store.grants.create(aGrant({ id: 'grt_finder', agentId: 'agt_finder', scope: 'all' }));
  await store.policies.putMany([
    aPolicy({
      action: ACTION.name,
      state: 'enabled',
      classification: 'read',
      reviewedHash: ACTION.contractHash,
      currentHash: ACTION.contractHash,
    }),
  ]);
  const governance = new GovernanceCache(store, { of: () => source });
  tools = new GovernedTools({
    store,
    audit: new AuditLog(store),
    principals: new Principals(governance, [new AgentKeys()]),
    vault: new CredentialVault(new Keyring(generateMasterKey())),
    executors: new Executors([executor]),
    watch: new ToolWatch(new RevisionWatch(governance)),
    taskIds: new TaskIds({ keys: [randomBytes(32)] }),
  });
  servers.push(
    await startMcpServer(tools),
    await startMcpServer(new ConnectionTools(tools, 'loud')),
  );
});

afterEach(() => vi.restoreAllMocks());

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await store.close();
});

describe('a tool call is decided once', () => {
  it('through call_action, under the action it names', async () => {
    const lookups = vi.spyOn(GovernanceSnapshot.prototype, 'resolveTool');
    const result = await modernToolCall(servers[0]!.url, FINDER_KEY, 'call_action', {
      arguments: { action: 'loud__shout', arguments: {} },
    });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'HEARD' }] });
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['/mcp', 0, 'loud__shout'],
    ['/mcp/c/<connection>', 1, 'shout'],
  ] as const)('on the 2026-07-28 wire at %s', async (_endpoint, server, name) => {
    const lookups = vi.spyOn(GovernanceSnapshot.prototype, 'resolveTool');
    const result = await modernToolCall(servers[server]!.url, KEY, name);
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'HEARD' }] });
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it('on the 2025 wire (the backend called without a decision)', async () => {
    const caller = (await tools.authenticate(`Bearer ${KEY}`))!;
    const lookups = vi.spyOn(GovernanceSnapshot.prototype, 'resolveTool');
    await tools.callTool(caller, {
      name: 'loud__shout',
      arguments: {},
      era: 'legacy',
      protocolVersion: '2025-11-25',
      clientCapabilities: {},
      cancel: new Cancellation(),
      progress: () => {},
      log: () => {},
      trace: undefined,
      input: undefined,
    });
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it("decides again when handed another caller's decision", async () => {
    const decided = tools.describeTool((await tools.authenticate(`Bearer ${KEY}`))!, 'loud__shout');
    const caller = (await tools.authenticate(`Bearer ${KEY}`))!;
    const lookups = vi.spyOn(GovernanceSnapshot.prototype, 'resolveTool');
    await tools.callTool(caller, {
      name: 'loud__shout',
      arguments: {},
      era: 'modern',
      protocolVersion: '2026-07-28',
      clientCapabilities: {},
      cancel: new Cancellation(),
      progress: () => {},
      log: () => {},
      trace: undefined,
      input: undefined,
      decided,
    });
    expect(lookups).toHaveBeenCalledTimes(1);
  });
});
