/**
 * Input a remote MCP server asks for mid-call, relayed to the calling agent,
 * across both eras on both sides: real SDK v2 servers (a 2026-07-28 one
 * answering `input_required`, a 2025-11-25 one asking with server requests on
 * the call's stream) behind the gateway, and real SDK v2 clients of each era
 * in front of it (a 2025-11-25 client answers server requests on its reply
 * stream, a 2026-07-28 client an `input_required` result it retries). Each of
 * elicitation, sampling and roots goes through every pairing and back; an
 * agent whose client did not declare the capability gets a clear refusal.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpEra } from '../../../../../runtime/core/mcp/wire/protocol-version.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.ts';
import { modernToolCall } from '../../../../support/mcp/raw-http.ts';
import { connectReviewed } from '../../../../support/remote/reviewed-connection.ts';
import { type SseUpstream, startSseUpstream } from '../../../../support/remote/sse-upstream.ts';
import {
  startUpstream,
  type Upstream,
  type UpstreamKind,
} from '../../../../support/remote/upstream-servers.ts';

let gateway: TestGateway;
let ctx: OperatorContext;
let key: string;
const upstreams: Array<Upstream | SseUpstream> = [];

beforeAll(async () => {
  gateway = await startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } });
  ctx = gateway.running.gateway.operator('test');
  ({ key } = await createAgent(ctx, { workspace: 'default', name: 'asked' }));
  for (const kind of ['modern', 'stateful', 'sse'] as const) {
    const upstream =
      kind === 'sse'
        ? await startSseUpstream({ askingTools: true })
        : await startUpstream(kind, { askingTools: true });
    upstreams.push(upstream);
    await connectReviewed(ctx, { url: upstream.url, name: `ask-${kind}` }, 'asked');
  }
});
afterAll(async () => {
  for (const upstream of upstreams) await upstream.close();
  await gateway?.close();
});

/** An SDK v2 client of `era` on /mcp, answering what it declared it can. */
async function agentClient(era: McpEra, declares: boolean): Promise<Client> {
  const client = new Client(
    { name: `agent-${era}`, version: '1.0.0' },
    {
      capabilities: declares ? { elicitation: { form: {} }, sampling: {}, roots: {} } : {},
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  if (declares) {
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: `Ada (${era})` },
    }));
    client.setRequestHandler('sampling/createMessage', async () => ({
      role: 'assistant',
      content: { type: 'text', text: `Paris (${era})` },
      model: 'test-model',
    }));
    client.setRequestHandler('roots/list', async () => ({
      roots: [{ uri: 'file:///work/a' }, { uri: 'file:///work/b' }],
    }));
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** Every upstream revision with every agent era. */
const PAIRINGS: [UpstreamKind, McpEra][] = [
  ['stateful', 'legacy'],
  ['stateful', 'modern'],
  ['modern', 'legacy'],
  ['modern', 'modern'],
];

/** The HTTP+SSE server asks with server requests, as a 2025 one does. */
const WITH_SSE: [UpstreamKind | 'sse', McpEra][] = [
  ...PAIRINGS,
  ['sse', 'legacy'],
  ['sse', 'modern'],
];

function textOf(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { text?: string }[];
  return first?.text ?? '';
}

describe.each<[UpstreamKind | 'sse', McpEra]>(WITH_SSE)(
  'a %s upstream asking a %s agent',
  (kind, era) => {
    let client: Client;
    const tool = (name: string) => `ask-${kind}__${name}`;

    beforeAll(async () => {
      client = await agentClient(era, true);
      expect(client.getProtocolEra()).toBe(era);
    });
    afterAll(() => client?.close());

    it('relays elicitation to the agent and its answer back', async () => {
      const result = await client.callTool({ name: tool('ask_name'), arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe(`Hello, Ada (${era})!`);
    });

    it('relays sampling to the agent and its answer back', async () => {
      const result = await client.callTool({ name: tool('ask_model'), arguments: {} });
      expect(textOf(result)).toBe(`the model said: Paris (${era})`);
    });

    it('relays roots/list to the agent and its answer back', async () => {
      const result = await client.callTool({ name: tool('count_roots'), arguments: {} });
      expect(textOf(result)).toBe('2 root(s): file:///work/a file:///work/b');
    });

    it('audits each round of the call', async () => {
      const audited = () => ctx.store.audit.query({ action: tool('ask_name'), limit: 50 });
      const before = (await audited()).length;
      for (let call = 0; call < 2; call++) {
        await client.callTool({ name: tool('ask_name'), arguments: {} });
      }
      // Newest first: the rounds of these calls lead the list.
      const after = await audited();
      const events = after.slice(0, after.length - before);
      // The question's round and the answer's, each allowed and ok.
      expect(events.length).toBeGreaterThanOrEqual(2);
      expect(events.map((event) => [event.decision, event.outcome])).toEqual(
        events.map(() => ['allowed', 'ok']),
      );
    });
  },
);

describe.each<[UpstreamKind, McpEra]>(PAIRINGS)(
  'a %s upstream asking a %s agent that declared nothing',
  (kind, era) => {
    let client: Client;

    beforeAll(async () => {
      client = await agentClient(era, false);
    });
    afterAll(() => client?.close());

    it('is refused with an error naming the capability the client lacks', async () => {
      let message: string;
      try {
        const result = await client.callTool({ name: `ask-${kind}__ask_name`, arguments: {} });
        expect(result.isError).toBe(true);
        message = textOf(result);
      } catch (error) {
        message = String((error as Error).message);
      }
      expect(message).toMatch(/did not declare|do not declare/);
      expect(message).toMatch(/elicitation/);
      expect(message).not.toMatch(/Hello/);
    });
  },
);

describe.each<[UpstreamKind, McpEra]>(PAIRINGS)(
  'a %s upstream asking a %s agent to open a page',
  (kind, era) => {
    /** A client declaring `elicitation` as given, accepting whatever it is asked. */
    async function declaring(elicitation: {
      form?: Record<string, never>;
      url?: Record<string, never>;
    }): Promise<Client> {
      const client = new Client(
        { name: `agent-${era}`, version: '1.0.0' },
        {
          capabilities: { elicitation },
          ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
        },
      );
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept' }));
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${key}` } },
        }),
      );
      return client;
    }

    it('relays it to a client that declared URL mode', async () => {
      const client = await declaring({ form: {}, url: {} });
      try {
        const result = await client.callTool({ name: `ask-${kind}__ask_to_open`, arguments: {} });
        expect(textOf(result)).toBe('the page: accept');
      } finally {
        await client.close();
      }
    });

    it('refuses it, naming elicitation.url, for a client that declared form mode only', async () => {
      const client = await declaring({ form: {} });
      let message: string;
      try {
        const result = await client.callTool({ name: `ask-${kind}__ask_to_open`, arguments: {} });
        expect(result.isError).toBe(true);
        message = textOf(result);
      } catch (error) {
        message = String((error as Error).message);
      } finally {
        await client.close();
      }
      // Portcullis names the mode a 2025 upstream's question needs; a 2026-07-28
      // upstream reads the agent's capabilities itself, and its refusal is relayed.
      expect(message).toMatch(kind === 'stateful' ? /elicitation\.url/ : /capabilit/);
      expect(message).not.toMatch(/the page: accept/);
    });
  },
);

describe('an answer brought back twice', () => {
  /** One raw 2026-07-28 tools/call of `ask-stateful__ask_name` on /mcp. */
  const ask = (extra: Record<string, unknown> = {}) =>
    modernToolCall(`${gateway.url}/mcp`, key, 'ask-stateful__ask_name', extra);

  it('finds the question answered the first time and gone the second', async () => {
    const question = await ask();
    expect(question.resultType).toBe('input_required');
    const [questionKey] = Object.keys(question.inputRequests as object);
    const answer = {
      requestState: question.requestState,
      inputResponses: { [questionKey!]: { action: 'accept', content: { name: 'Eve' } } },
    };
    const first = await ask(answer);
    expect(textOf(first)).toBe('Hello, Eve!');
    const again = await ask(answer);
    expect(again.isError).toBe(true);
    expect((again.structuredContent as { error: { code: string } }).error.code).toBe(
      'mcp_remote_input_expired',
    );
  });
});
