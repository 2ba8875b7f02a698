/**
 * Requests to a remote connection a decision allowed, with the credential
 * the decision names and the workspace's redactor: a forwarded prompt get,
 * resource read, completion or list, what the server serves in the caller's
 * session, and a resource subscription.
 */

import type { TraceCarrier } from '../base/tracing.ts';
import type { Caller } from '../identity/principals/principals.ts';
import type { RequestContext } from '../mcp/server/tool-backend.ts';
import type { McpEra } from '../mcp/wire/protocol-version.ts';
import type { Forwarded, RemoteMcpExecutor } from '../sources/remote-mcp/remote-mcp-executor.ts';
import type { UpdateListener } from '../sources/remote-mcp/resource-subscriptions.ts';
import { actingForOf } from './acting-for.ts';
import type { CallCredentials } from './call-credentials.ts';
import type { AllowedFeatures } from './decision.ts';
import type { WorkspaceSecrets } from './workspace-secrets.ts';

export class RemoteRequests {
  readonly #remote: RemoteMcpExecutor;
  readonly #credentials: CallCredentials;
  readonly #secrets: WorkspaceSecrets;

  constructor(remote: RemoteMcpExecutor, credentials: CallCredentials, secrets: WorkspaceSecrets) {
    this.#remote = remote;
    this.#credentials = credentials;
    this.#secrets = secrets;
  }

  async forward(
    caller: Caller,
    allowed: AllowedFeatures,
    context: RequestContext,
    method: string,
    params: Record<string, unknown>,
    trace?: TraceCarrier,
  ): Promise<Forwarded> {
    return this.#remote.forward({
      ...(await this.#call(caller, allowed, context.era)),
      secrets: await this.#secrets.of(caller.snapshot, caller.workspaceId),
      cancel: context.cancel,
      clientCapabilities: context.clientCapabilities,
      progress: context.progress,
      log: context.log,
      input: context.input,
      method,
      params,
      trace,
    });
  }

  /** What the server says it serves in the caller's session; undefined when it cannot be reached. */
  async capabilitiesOf(
    caller: Caller,
    allowed: AllowedFeatures,
    era?: McpEra,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      return await this.#remote.capabilitiesOf(await this.#call(caller, allowed, era));
    } catch {
      return undefined;
    }
  }

  /** Subscribes to a resource in the caller's session; resolves with what lets it go. */
  async subscribe(
    caller: Caller,
    allowed: AllowedFeatures,
    era: McpEra,
    uri: string,
    listener: UpdateListener,
  ): Promise<() => Promise<void>> {
    return this.#remote.subscribeResource(await this.#call(caller, allowed, era), uri, listener);
  }

  async #call(caller: Caller, allowed: AllowedFeatures, era: McpEra | undefined) {
    const { connection, source, credentialOwner } = allowed;
    return {
      target: { connection, source },
      credential: await this.#credentials.of(caller, allowed, source.sendsCredential()),
      credentialOwner,
      actingFor: actingForOf(caller),
      era,
    };
  }
}
