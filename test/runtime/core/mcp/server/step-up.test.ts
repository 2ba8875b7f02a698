/**
 * A tool call refused `insufficient_scope` is MCP's step-up: HTTP 403 with
 * the `WWW-Authenticate` challenge on both wires (what the SDKs' clients step
 * up from), unless the endpoint is told to answer it as a result carrying the
 * challenge in `_meta["mcp/www_authenticate"]` (OpenAI's Apps SDK). Any other
 * refusal stays a result, and a reply already streaming ends with the result.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../../runtime/core/base/errors.ts';
import type {
  McpPrincipal,
  ToolCall,
  ToolOutcome,
} from '../../../../../runtime/core/mcp/server/tool-backend.ts';
import { FixtureBackend } from '../../../../support/mcp/fixture-backend.ts';
import { type FixtureServer, startMcpServer } from '../../../../support/mcp/fixture-server.ts';
import { modern, openSession, type RawReply, raw, rpc } from '../../../../support/mcp/raw-http.ts';

/** The fixture, with one tool its callers' tokens never cover and one it refuses otherwise. */
class ScopedBackend extends FixtureBackend {
  override async callTool(principal: McpPrincipal, call: ToolCall): Promise<ToolOutcome> {
    if (call.name === 'deploy') {
      // Something said on the way first, when the caller asked for progress: the reply streams.
      call.progress(1, 2);
      throw new GatewayError('insufficient_scope', 'deploy: this write needs tools:write', {
        detail: { scope: 'tools:read tools:write' },
      });
    }
    if (call.name === 'off') throw new GatewayError('action_disabled', 'off: disabled');
    return super.callTool(principal, call);
  }
}

const RESOURCE = 'http://127.0.0.1/.well-known/oauth-protected-resource/mcp';
const CHALLENGE = `Bearer realm="portcullis", error="insufficient_scope", error_description="the access token does not carry the scope this action needs", scope="tools:read tools:write", resource_metadata="${RESOURCE}"`;

let server: FixtureServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function started(stepUp?: 'http' | 'result'): Promise<FixtureServer> {
  server = await startMcpServer(new ScopedBackend(), {
    resourceMetadataUrl: RESOURCE,
    ...(stepUp === undefined ? {} : { stepUp }),
  });
  return server;
}

/** A legacy session's `tools/call` of `name`, and a modern one: both replies. */
async function callOnBothWires(
  running: FixtureServer,
  name: string,
): Promise<{ legacy: RawReply; modern: RawReply }> {
  const session = await openSession(running);
  const legacy = await raw(running, { session, body: rpc('tools/call', { name, arguments: {} }) });
  const call = modern('tools/call', { name, arguments: {} });
  const modernReply = await raw(running, { headers: call.headers, body: call.body });
  return { legacy, modern: modernReply };
}

describe('a call whose token lacks the scope', () => {
  it('is HTTP 403 with the challenge and the one error shape, on both wires, by default', async () => {
    const replies = await callOnBothWires(await started(), 'deploy');
    for (const reply of [replies.legacy, replies.modern]) {
      expect(reply.status).toBe(403);
      expect(reply.headers['www-authenticate']).toBe(CHALLENGE);
      expect(reply.json.error.data.error.code).toBe('insufficient_scope');
      expect(reply.json.result).toBeUndefined();
    }
  });

  it('is a result carrying the challenge in _meta when told so', async () => {
    const replies = await callOnBothWires(await started('result'), 'deploy');
    for (const reply of [replies.legacy, replies.modern]) {
      expect(reply.status).toBe(200);
      expect(reply.headers['www-authenticate']).toBeUndefined();
      expect(reply.json.result.isError).toBe(true);
      expect(reply.json.result.structuredContent.error.code).toBe('insufficient_scope');
      expect(reply.json.result._meta['mcp/www_authenticate']).toEqual([CHALLENGE]);
    }
  });

  it('ends a reply that is already streaming with the result, its status long sent', async () => {
    const running = await started();
    const session = await openSession(running);
    const reply = await raw(running, {
      session,
      body: rpc('tools/call', { name: 'deploy', arguments: {}, _meta: { progressToken: 'p' } }),
    });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toContain('text/event-stream');
    const last = reply.text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)))
      .at(-1);
    expect(last.result.structuredContent.error.code).toBe('insufficient_scope');
    expect(last.result._meta['mcp/www_authenticate']).toEqual([CHALLENGE]);
  });
});

describe('any other refusal', () => {
  it('stays a 200 result with its reason code and no challenge', async () => {
    const replies = await callOnBothWires(await started(), 'off');
    for (const reply of [replies.legacy, replies.modern]) {
      expect(reply.status).toBe(200);
      expect(reply.headers['www-authenticate']).toBeUndefined();
      expect(reply.json.result.structuredContent.error.code).toBe('action_disabled');
    }
  });
});
