/**
 * Executes one native REST action: build the request from the catalog
 * (host from the server template, encoded path, serialized query, body), check
 * the host against the catalog's allowlist before the credential goes on, send
 * it through the guarded client, and turn the reply into a tool result.
 * Writes are never retried; a write whose reply never came is reported as
 * `write_outcome_unknown`, because the provider may have done it.
 */
import type { CatalogAction } from '../../../../generated/catalog-format.ts';
import { GatewayError } from '../../base/errors.ts';
import type { ProviderCatalog } from '../../catalog/catalog-set.ts';
import type { Connection } from '../../model/governance.ts';
import type { GuardedClient, OutboundReply } from '../../outbound/guarded-client.ts';
import { Redactor } from '../../outbound/redaction.ts';
import type { CallOutcome } from '../connection-health.ts';
import type { ExecuteCall, Execution, Executor } from '../executor.ts';
import { type ActionArguments, buildRestRequest } from './build-request.ts';
import type { NativeRestTarget } from './catalog-tool-source.ts';
import { resultFromReply } from './reply-result.ts';

/**
 * Development only: where a provider's calls go instead (Prism, a local
 * upstream). Given the action and the URL built for the real host; undefined
 * keeps the URL.
 */
export type UpstreamOverride = (
  provider: string,
  action: CatalogAction,
  url: URL,
) => URL | undefined;

/** One REST request, for the executor and for the verify read when connecting. */
export interface RestCall {
  provider: ProviderCatalog;
  action: CatalogAction;
  connection: Connection;
  args: ActionArguments;
  /** The credential's fields by name; undefined when the action sends none. */
  credential: Record<string, string> | undefined;
  /** The caller's workspace's credentials, kept out of the reply too. */
  secrets?: Redactor;
  cancel?: ExecuteCall['cancel'];
  trace?: ExecuteCall['trace'];
}

export class NativeRestExecutor implements Executor<NativeRestTarget> {
  readonly kind = 'native_rest';
  readonly #client: GuardedClient;
  readonly #override: UpstreamOverride | undefined;
  /** Each credential's redactor (with its workspace's), made once per opened credential. */
  readonly #redactors = new WeakMap<Record<string, string>, Redactor>();

  constructor(client: GuardedClient, override?: UpstreamOverride) {
    this.#client = client;
    this.#override = override;
  }

  execute(call: ExecuteCall<NativeRestTarget>): Promise<Execution> {
    const { target } = call;
    return this.send({
      provider: target.source.provider,
      action: target.action,
      connection: target.connection,
      args: call.arguments as ActionArguments,
      credential: call.credential,
      ...(call.secrets === undefined ? {} : { secrets: call.secrets }),
      cancel: call.cancel,
      trace: call.trace,
    });
  }

  async send(call: RestCall): Promise<Execution> {
    const { provider, action, connection } = call;
    const override = this.#override;
    const request = buildRestRequest(action, call.args, {
      settings: connection.settings,
      ...(override
        ? { hostOverride: (url: URL) => override(provider.id, action, url) ?? url }
        : {}),
    });
    ensureHostAllowed(provider, connection, request.host);

    // The request is this call's own: the credential joins its headers.
    const { headers } = request;
    let redactor = call.secrets;
    if (action.request.credential) {
      const auth = provider.manifest.connection.auth;
      const field = auth.fields[0]!;
      const value = call.credential?.[field.name];
      if (!value) {
        throw new GatewayError(
          'credential_missing',
          `connection ${connection.name} has no ${field.label}`,
          {
            field: field.name,
          },
        );
      }
      redactor = this.#redactorOf(call.credential!, value, call.secrets);
      if (auth.kind === 'bearer') headers.authorization = `Bearer ${value}`;
      else headers[auth.header.toLowerCase()] = value;
    }

    const requestBytes = request.body === undefined ? 0 : Buffer.byteLength(request.body);
    let reply: OutboundReply;
    try {
      reply = await this.#client.send(
        {
          method: request.method,
          url: request.url,
          headers,
          ...(redactor === undefined ? {} : { redactor }),
          ...(request.body === undefined ? {} : { body: request.body }),
          trace: call.trace,
        },
        call.cancel ? { cancel: call.cancel } : {},
      );
    } catch (error) {
      throw asOutcomeError(error, action);
    }
    const health: CallOutcome = reply.status >= 500 ? 'failure' : 'success';
    // A reply that cannot be used (a redirect, JSON that is not) throws: it fails this call only.
    return {
      outcome: resultFromReply(action, reply),
      host: request.host,
      address: request.url.host === request.host ? null : request.url.origin,
      upstreamStatus: reply.status,
      requestBytes,
      replyBytes: reply.bytes,
      health,
    };
  }

  #redactorOf(
    credential: Record<string, string>,
    secret: string,
    secrets: Redactor | undefined,
  ): Redactor {
    let redactor = this.#redactors.get(credential);
    if (redactor === undefined || redactor.also !== secrets) {
      redactor = new Redactor([secret], secrets);
      this.#redactors.set(credential, redactor);
    }
    return redactor;
  }

  healthOutcomeOf(error: unknown): CallOutcome {
    return restHealthOutcomeOf(error);
  }
}

/** Whether a REST call's error counts against the connection's health. */
export function restHealthOutcomeOf(error: unknown): CallOutcome {
  if (!(error instanceof GatewayError) || wasCancelled(error)) return 'neutral';
  switch (error.code) {
    case 'upstream_unreachable':
    case 'upstream_timeout':
    case 'upstream_deadline_exceeded':
    case 'write_outcome_unknown':
      return 'failure';
    default:
      return 'neutral';
  }
}

/** The caller went away or cancelled: nothing to say about the connection. */
function wasCancelled(error: GatewayError): boolean {
  const cause = error.cause instanceof GatewayError ? error.cause : error;
  return cause.detail?.cause === 'aborted';
}

function ensureHostAllowed(provider: ProviderCatalog, connection: Connection, host: string): void {
  const { fixed, settings } = provider.catalog.hosts;
  const allowed =
    fixed.includes(host) ||
    settings.some((name) => connection.settings[name]?.toLowerCase() === host);
  if (!allowed) {
    throw new GatewayError(
      'host_not_allowed',
      `${host} is not a host connection ${connection.name} may call`,
      {
        detail: { host },
      },
    );
  }
}

/** Failures that leave a sent request without a usable reply. */
const NO_REPLY = new Set<string>([
  'upstream_timeout',
  'upstream_deadline_exceeded',
  'upstream_unreachable',
  'upstream_reply_invalid',
]);

/**
 * A write whose request left but whose reply never came (a timeout, the
 * deadline, a dropped connection, a reply that is not HTTP) may have happened
 * at the provider: say so, never replay it.
 */
function asOutcomeError(error: unknown, action: CatalogAction): unknown {
  if (
    error instanceof GatewayError &&
    NO_REPLY.has(error.code) &&
    error.detail?.requestSent === true &&
    action.classification !== 'read'
  ) {
    return new GatewayError(
      'write_outcome_unknown',
      'the request reached the provider but no reply came; the change may have happened. It was not retried: check its state before calling again',
      { detail: { phase: 'reply', after: error.code }, cause: error },
    );
  }
  return error;
}
