/**
 * A request that names one of a connection's prompts, resources or
 * templates (a prompt get, a resource read, a completion), through the
 * governed pipeline: one decision (decision.ts), then the request forwarded
 * to the connection's server, one audit event (action `<method> <name>`)
 * either way. The per-kind adapters (prompt-get.ts, resource-read.ts,
 * completion.ts) say what is named and shape the reply.
 */
import type { GatewayError } from '../base/errors.ts';
import type { Caller } from '../identity/principals/principals.ts';
import type { RequestContext } from '../mcp/server/tool-backend.ts';
import { type CallAudit, upstreamAttributes } from './audited-call.ts';
import { type CallLimits, chargeLimits } from './call-limits.ts';
import { type AllowedFeatures, decideFeatureRead } from './decision.ts';
import { type FeatureView, notFoundOf, resultOf } from './feature-names.ts';
import type { NamedFeature } from './pinned-features.ts';
import type { RemoteRequests } from './remote-requests.ts';

/** The upstream span of a request for a remote server's prompt, resource or list: a read. */
export const REMOTE_READ = upstreamAttributes('remote_mcp', 'read');

/** What the feature adapters forward through. */
export interface Forwarding {
  audit: CallAudit;
  remote: RemoteRequests;
  /** The rate limits an allowed request is charged to (none without). */
  limits: CallLimits | undefined;
  /** What the server answered does not match its pins: discover the connection again. */
  unpinned?: (connectionId: string) => void;
}

export interface NamedRequest {
  view: FeatureView;
  /** The connection the name says, when it says one (on `/mcp`). */
  connection: string | undefined;
  item: NamedFeature;
  method: string;
  params: Record<string, unknown>;
  context: RequestContext;
  /** What a name that is no connection of the workspace is refused with. */
  unknown(): GatewayError;
  /** Refused before any decision, audited: the client cannot take what it names (an app's page, without the extension). */
  refusal?: GatewayError;
  /** Arguments to hash into the event (a prompt's). */
  arguments?: { value: unknown };
  /** Why the server's answer may not be served (it is not what was reviewed), checked before it is. */
  check?(outcome: Record<string, unknown>, allowed: AllowedFeatures): GatewayError | undefined;
}

/** The server's result, as the agent's era takes it, with what the decision allowed. */
export interface NamedResult {
  result: Record<string, unknown>;
  allowed: AllowedFeatures;
}

export function forwardNamed(
  forwarding: Forwarding,
  caller: Caller,
  request: NamedRequest,
): Promise<NamedResult> {
  const { method, item, context } = request;
  const opening = {
    caller,
    action: `${method} ${item.shown}`,
    trace: context.trace,
    span: context.span,
  };
  return forwarding.audit.run(opening, async (audited) => {
    if (request.arguments) audited.hashArguments(request.arguments.value);
    if (request.refusal)
      return audited.refuse({ allowed: false, refusal: request.refusal, connectionId: null });
    const decision = audited.decide(() =>
      decideFeatureRead(caller, {
        connection: request.view.only ?? request.connection,
        item,
        unknown: request.unknown,
      }),
    );
    if (!decision.allowed) return audited.refuse(decision);
    const limited = await chargeLimits(audited, forwarding.limits, caller, {
      agent: decision.agent,
      connection: decision.connection,
      action: `${method} ${item.shown}`,
      classification: 'read',
    });
    if (limited)
      return audited.refuse({
        allowed: false,
        refusal: limited,
        connectionId: decision.connection.id,
      });
    audited.allowed(decision.connection.id);
    if (audited.argumentProblem !== undefined) {
      await audited.failed(audited.argumentProblem);
      throw audited.argumentProblem;
    }
    let forwarded: Awaited<ReturnType<RemoteRequests['forward']>>;
    try {
      forwarded = await audited.upstream(REMOTE_READ, (trace) =>
        forwarding.remote.forward(caller, decision, context, method, request.params, trace),
      );
    } catch (error) {
      const told = notFoundOf(error, method, item.shown) ?? error;
      await audited.failed(error, told);
      throw told;
    }
    const refused = request.check?.(forwarded.outcome as Record<string, unknown>, decision);
    if (refused) {
      await audited.failed(refused);
      throw refused;
    }
    await audited.executed(forwarded).catch(forwarding.audit.report);
    return {
      result: resultOf(forwarded.outcome as Record<string, unknown>, context),
      allowed: decision,
    };
  });
}
