/**
 * Forwarding one governed call to a remote MCP server: the connection's
 * credential becomes its headers (checked again as they go out), the call
 * goes out in the caller's upstream session (per connection and credential
 * identity, opened once however many calls ask at once), and the reply comes
 * back bounded and checked.
 *
 * Seed 003: a reply that is too large, not JSON, or not an answer to the
 * request fails only that call, leaves health alone, and forgets only the
 * caller's session, and only while it is still the one that failed. A 404 for
 * the session opens a new one once, for that caller. The server's status
 * errors, JSON-RPC errors and the network's failures count against health.
 */
import { createHash } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { GatewayError } from '../errors.ts';
import type { CallOutcome } from '../execute/connection-health.ts';
import type { ExecuteCall, Execution, Executor } from '../execute/executor.ts';
import { isPlainObject } from '../json-value.ts';
import { Redactor } from '../outbound/redaction.ts';
import { signInElicitation } from '../upstream-sign-in/sign-in-elicitation.ts';
import type { UpstreamTokens } from '../upstream-sign-in/upstream-tokens.ts';
import type { RpcNotification } from './mcp-reply.ts';
import { openSession } from './open-session.ts';
import { BEARER_FIELD, credentialHeaders } from './remote-headers.ts';
import type { RemoteEndpoint } from './remote-model.ts';
import type { RemoteTarget } from './remote-tool-source.ts';
import {
  SessionExpired,
  type UpstreamClient,
  type UpstreamSession,
  type UpstreamTarget,
} from './upstream-client.ts';
import { sessionKey, type UpstreamSessions } from './upstream-sessions.ts';

/** Codes about one reply, not the connection: they change nothing but the caller's session. */
const CALL_ONLY = new Set([
  'mcp_remote_response_too_large',
  'mcp_remote_malformed_response',
  'mcp_remote_invalid_json',
]);

const HEALTH_FAILURES = new Set([
  'upstream_unreachable',
  'upstream_timeout',
  'upstream_deadline_exceeded',
  'write_outcome_unknown',
  'upstream_address_refused',
  'mcp_remote_status',
  'mcp_remote_error',
  'mcp_remote_session_expired',
]);

export class RemoteMcpExecutor implements Executor<RemoteTarget> {
  readonly kind = 'remote_mcp';
  readonly #client: UpstreamClient;
  readonly #sessions: UpstreamSessions;
  /** The access tokens of signed-in (`oauth`) connections; without it their calls go out bare. */
  tokens: UpstreamTokens | undefined;
  /** Told of each upstream session this executor opens (to listen for list changes). */
  sessionOpened:
    | ((connectionId: string, target: UpstreamTarget, session: UpstreamSession) => void)
    | undefined;

  constructor(client: UpstreamClient, sessions: UpstreamSessions) {
    this.#client = client;
    this.#sessions = sessions;
  }

  async execute(call: ExecuteCall<RemoteTarget>): Promise<Execution> {
    const { connection, source } = call.target;
    const tokens = source.endpoint.authKind === 'oauth' ? this.tokens : undefined;
    if (!tokens) return this.#execute(call, call.credential);
    // A signed-in connection: its access token as Bearer, fresh once after a 401.
    const owner = {
      workspaceId: connection.workspaceId,
      connectionId: connection.id,
      connectionName: connection.name,
      agentId: call.credentialOwner ?? null,
    };
    let used: string;
    try {
      used = await tokens.accessToken(source.endpoint, owner);
    } catch (error) {
      // The agent's person signs in first, where its client can open a link for them.
      const asked = signInElicitation(error, call, new URL(source.endpoint.url).host);
      if (asked) return asked;
      throw error;
    }
    try {
      return await this.#execute(call, { [BEARER_FIELD]: used });
    } catch (error) {
      const fresh = await tokens.afterRefusal(source.endpoint, owner, error, used);
      if (fresh === undefined) throw error;
      return this.#execute(call, { [BEARER_FIELD]: fresh }).catch((again: unknown) =>
        tokens.afterSecondRefusal(owner, again),
      );
    }
  }

  async #execute(
    call: ExecuteCall<RemoteTarget>,
    credential: Record<string, string> | undefined,
  ): Promise<Execution> {
    const { connection, source, action } = call.target;
    const target = upstreamTarget(source.endpoint, credential);
    const key = sessionKey(connection.id, credentialIdentity(target.headers));
    const open = async () => {
      const opened = await this.#open(target, source.endpoint, call.clientCapabilities);
      this.sessionOpened?.(connection.id, target, opened);
      return opened;
    };
    const progressToken = `pc-${Math.random().toString(36).slice(2)}`;
    const params = {
      name: action.name,
      arguments: call.arguments,
      _meta: { progressToken },
    };
    const requestBytes = Buffer.byteLength(JSON.stringify(params));
    let session = await this.#sessions.get(key, open);
    let answer: Awaited<ReturnType<UpstreamClient['request']>>;
    try {
      answer = await this.#call(target, session, params, call);
    } catch (error) {
      if (error instanceof SessionExpired) {
        this.#sessions.forget(key, session);
        session = await this.#sessions.get(key, open);
        try {
          answer = await this.#call(target, session, params, call);
        } catch (again) {
          throw this.#failed(key, session, again);
        }
      } else {
        throw this.#failed(key, session, error);
      }
    }
    const outcome = toolResultOf(answer.result);
    return {
      outcome,
      host: target.url.host,
      address: null,
      upstreamStatus: 200,
      requestBytes,
      replyBytes: Buffer.byteLength(JSON.stringify(answer.result)),
      health: 'success',
    };
  }

  healthOutcomeOf(error: unknown): CallOutcome {
    if (!(error instanceof GatewayError)) return 'neutral';
    if (error.detail?.cancelled === true || isCancelled(error)) return 'neutral';
    return HEALTH_FAILURES.has(error.code) ? 'failure' : 'neutral';
  }

  /** Forgets every session of a connection (disconnect, a new credential). */
  forgetConnection(connectionId: string): UpstreamSession[] {
    return this.#sessions.forgetConnection(connectionId);
  }

  async #open(
    target: UpstreamTarget,
    endpoint: RemoteEndpoint,
    capabilities: Record<string, unknown>,
  ): Promise<UpstreamSession> {
    return openSession(this.#client, target, endpoint, { clientCapabilities: capabilities });
  }

  async #call(
    target: UpstreamTarget,
    session: UpstreamSession,
    params: { name: string; arguments: unknown; _meta: { progressToken: string } },
    call: ExecuteCall<RemoteTarget>,
  ) {
    return this.#client.request(target, session, 'tools/call', params, {
      cancel: call.cancel,
      // Relayed as they arrive, before the result.
      onNotification: (message) => relay([message], String(params._meta.progressToken), call),
      clientCapabilities: call.clientCapabilities as Record<string, unknown>,
    });
  }

  /** The error the call fails with; a reply-only one forgets the caller's session (if still that one). */
  #failed(key: string, session: UpstreamSession, error: unknown): unknown {
    if (error instanceof SessionExpired) {
      this.#sessions.forget(key, session);
      return new GatewayError('mcp_remote_session_expired');
    }
    if (error instanceof GatewayError && CALL_ONLY.has(error.code))
      this.#sessions.forget(key, session);
    return error;
  }
}

/** The upstream address with the credential's headers, checked as they go out. */
export function upstreamTarget(
  endpoint: RemoteEndpoint,
  credential: Record<string, string> | undefined,
): UpstreamTarget {
  const headers = credentialHeaders(credential, endpoint.headerNames);
  return {
    url: new URL(endpoint.url),
    headers,
    redactor: new Redactor(Object.values(credential ?? {})),
  };
}

/** Who the upstream sees: a hash of the credential headers (the same credential, the same session). */
export function credentialIdentity(headers: Record<string, string>): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(headers).sort()) hash.update(`${name}\0${headers[name]}\0`);
  return hash.digest('hex').slice(0, 32);
}

/** Progress and log messages the upstream sent about this call, relayed to the agent. */
function relay(messages: readonly RpcNotification[], token: string, call: ExecuteCall): void {
  for (const message of messages) {
    const params = message.params ?? {};
    if (message.method === 'notifications/progress' && params.progressToken === token) {
      if (typeof params.progress === 'number')
        call.progress(
          params.progress,
          typeof params.total === 'number' ? params.total : undefined,
          typeof params.message === 'string' ? params.message : undefined,
        );
    } else if (message.method === 'notifications/message') {
      const level = params.level;
      if (typeof level === 'string')
        call.log(
          level as Parameters<ExecuteCall['log']>[0],
          params.data,
          typeof params.logger === 'string' ? params.logger : undefined,
        );
    }
  }
}

function toolResultOf(result: Record<string, unknown>): CallToolResult {
  if (!Array.isArray(result.content))
    throw new GatewayError(
      'mcp_remote_malformed_response',
      "the remote MCP server's tools/call result has no content array",
    );
  const outcome: CallToolResult = { content: result.content as CallToolResult['content'] };
  if (isPlainObject(result.structuredContent)) outcome.structuredContent = result.structuredContent;
  if (result.isError === true) outcome.isError = true;
  return outcome;
}

function isCancelled(error: GatewayError): boolean {
  const cause = error.cause instanceof GatewayError ? error.cause : error;
  return cause.detail?.cause === 'aborted';
}
