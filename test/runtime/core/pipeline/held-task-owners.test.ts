/**
 * A held call's task id is bound to its caller (docs/approvals.md, "How the
 * agent waits"): ada's OAuth client calls an `ask` action and is answered a
 * task, on the 2026-07-28 wire and on a 2025-11-25 session. Asked for it
 * (`tasks/get`, `tasks/update`, `tasks/cancel`) by another agent acting for
 * ada (her second OAuth client), by another member's client (otis's), and by
 * an agent of another workspace, each is answered `task_not_found` byte for
 * byte as it is for an id that never existed. None of them reached it: the
 * task still works for ada's client, and once approved it is hers, completed.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { addMember } from '../../../../runtime/core/operator/members.ts';
import { createWorkspace } from '../../../../runtime/core/operator/workspaces.ts';
import { APPROVALS, type Json } from '../../../support/approvals/approvals-api.ts';
import { adminClient } from '../../../support/gateway.ts';
import {
  ACCEPT_BOTH,
  modern,
  modernMeta,
  TASKS_CAPABILITIES,
} from '../../../support/mcp/raw-http.ts';
import { consent } from '../../../support/oauth/consent-bot.ts';
import {
  MEMBER,
  type OAuthGateway,
  startOAuthGateway,
  WRITE_ARGS,
  WRITE_TOOL,
} from '../../../support/oauth/oauth-gateway.ts';
import { authorizeUrl, exchange, pkce, registerClient } from '../../../support/oauth/raw-flow.ts';

const OTIS = { member: 'otis', password: 'another horse battery staple' };
const METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;
/** Every request of a comparison carries this id, so whole replies can be compared. */
const REQUEST_ID = 7;

/** A wire a caller speaks: one request, its JSON-RPC reply as sent (text) and parsed. */
interface Wire {
  send(method: string, params: Json): Promise<{ text: string; json: Json; response: Response }>;
}

let gateway: OAuthGateway;
/** The bearer credential of each caller. */
const tokens: Record<'ada' | 'adaAgain' | 'otis' | 'elsewhere', string> = {
  ada: '',
  adaAgain: '',
  otis: '',
  elsewhere: '',
};

/** An access token of a newly registered client, approved by `member`. */
async function tokenFor(member: { member: string; password: string }): Promise<string> {
  const client = await registerClient(gateway.url);
  const { verifier, challenge } = pkce();
  const { location } = await consent(
    authorizeUrl(gateway.url, client, {
      code_challenge: challenge,
      scope: 'tools:read tools:write',
    }),
    member,
  );
  const code = location.searchParams.get('code');
  if (code === null) throw new Error(`no code: ${location.search}`);
  const reply = await exchange(gateway.url, client, { code, verifier });
  expect(reply.status).toBe(200);
  return String(reply.body.access_token);
}

beforeAll(async () => {
  gateway = await startOAuthGateway({ environment: { PORTCULLIS_APPROVAL_WAIT_MS: '0' } });
  const ctx = gateway.gateway.running.gateway.operator('cli');
  await addMember(ctx, { workspace: 'default', name: OTIS.member, password: OTIS.password });
  await changeActions(ctx, 'ask', {
    workspace: 'default',
    connection: 'unikraft',
    actions: [WRITE_TOOL],
  });
  tokens.ada = await tokenFor(MEMBER);
  tokens.adaAgain = await tokenFor(MEMBER);
  tokens.otis = await tokenFor(OTIS);
  // Each client is an agent of its own: ada's two act for her, otis's for him.
  expect(await gateway.grantConsentAgents()).toHaveLength(3);
  await createWorkspace(ctx, { name: 'elsewhere' });
  tokens.elsewhere = (await createAgent(ctx, { workspace: 'elsewhere', name: 'stranger' })).key;
}, 120_000);

afterAll(async () => {
  await gateway?.close();
});

/** One message POSTed to `/mcp`: the reply's JSON-RPC message of `REQUEST_ID`, as sent. */
async function post(
  token: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ text: string; json: Json; response: Response }> {
  const response = await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: ACCEPT_BOTH,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const all = await response.text();
  const texts = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? all
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
    : [all];
  const text = texts.find((one) => one !== '' && (JSON.parse(one) as Json).id === REQUEST_ID);
  return { text: text ?? all, json: text === undefined ? {} : JSON.parse(text), response };
}

/** The 2026-07-28 wire of `token`'s client, declaring the tasks extension. */
function modernWire(token: string): Wire {
  return {
    async send(method, params) {
      const { body, headers } = modern(method, params, {
        id: REQUEST_ID,
        meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': TASKS_CAPABILITIES }),
      });
      return post(token, body, headers);
    },
  };
}

/** A 2025-11-25 session of `token`'s client, declaring the tasks extension. */
async function legacyWire(token: string): Promise<Wire> {
  const opened = await post(
    token,
    {
      jsonrpc: '2.0',
      id: REQUEST_ID,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: TASKS_CAPABILITIES,
        clientInfo: { name: 'held-task-owners', version: '1.0.0' },
      },
    },
    {},
  );
  expect(opened.json.result?.protocolVersion).toBe('2025-11-25');
  const session = opened.response.headers.get('mcp-session-id')!;
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await post(token, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return {
    send: (method, params) =>
      post(token, { jsonrpc: '2.0', id: REQUEST_ID, method, params }, headers),
  };
}

const WIRES: Array<[string, (token: string) => Promise<Wire>]> = [
  ['2026-07-28', async (token) => modernWire(token)],
  ['2025-11-25', legacyWire],
];

function paramsOf(method: string, taskId: string): Json {
  return method === 'tasks/update' ? { taskId, inputResponses: {} } : { taskId };
}

/** An id in the form of ours that no one was ever given. */
function neverIssued(): string {
  return `pct1.${randomBytes(150).toString('base64url')}`;
}

describe.each(WIRES)("a held call's task on the %s wire", (_wire, open) => {
  it('is not_found for every other caller, exactly as an id that never existed; its owner gets it', async () => {
    const ada = await open(tokens.ada);
    const args = { body: { ...WRITE_ARGS.body, name: `owners-${_wire}` } };
    const held = await ada.send('tools/call', { name: WRITE_TOOL, arguments: args });
    expect(held.json.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = held.json.result.taskId as string;
    expect(taskId).toMatch(/^pct1\./);

    const others = {
      'another agent of the same member': tokens.adaAgain,
      "another member's client": tokens.otis,
      'a caller in another workspace': tokens.elsewhere,
    };
    const refusals: string[] = [];
    for (const [who, token] of Object.entries(others)) {
      const wire = await open(token);
      for (const method of METHODS) {
        const theirs = await wire.send(method, paramsOf(method, taskId));
        const nobodys = await wire.send(method, paramsOf(method, neverIssued()));
        expect(theirs.json.error?.data, `${who}: ${method}`).toMatchObject({
          error: { code: 'task_not_found' },
        });
        expect(theirs.response.status, `${who}: ${method}`).toBe(nobodys.response.status);
        // Byte for byte: the whole JSON-RPC reply, its id being the same.
        expect(theirs.text, `${who}: ${method}`).toBe(nobodys.text);
        refusals.push(theirs.text);
      }
    }
    // Nothing in the refusal tells one caller from another.
    expect(new Set(refusals).size).toBe(1);

    // Their cancels reached nothing: the task is ada's, still waiting for its approver.
    expect((await ada.send('tasks/get', { taskId })).json.result).toMatchObject({
      taskId,
      status: 'working',
    });
    const admin = adminClient(gateway.url, gateway.gateway.adminToken!);
    const pending = (await admin('GET', APPROVALS)).body as Json[];
    const approval = pending.find((a) => a.arguments?.body?.name === args.body.name)!;
    expect(approval).toMatchObject({ state: 'pending', member: MEMBER.member, task: true });
    expect((await admin('POST', `${APPROVALS}/${approval.id}/approve`, {})).status).toBe(200);
    let state = (await ada.send('tasks/get', { taskId })).json.result;
    while (state.status === 'working') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state = (await ada.send('tasks/get', { taskId })).json.result;
    }
    expect(state).toMatchObject({ status: 'completed', result: { content: expect.any(Array) } });
    expect(state.result.isError).toBeFalsy();
    // Still no one else's, once completed.
    const otis = await open(tokens.otis);
    expect((await otis.send('tasks/get', { taskId })).text).toBe(
      (await otis.send('tasks/get', { taskId: neverIssued() })).text,
    );
  });
});
