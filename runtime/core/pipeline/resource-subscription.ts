/**
 * A resource subscription, through the governed pipeline: decided as a read
 * of the resource is (refused and audited alike), refused as
 * `invalid_params` when the connection's server takes no subscriptions (no
 * update would ever come), and otherwise made upstream in the caller's
 * session, its updates given to `request.updated` under the agent's name for
 * the URI. Subscribing and letting go each leave an audit event
 * (`resources/subscribe <uri>`, `resources/unsubscribe <uri>`).
 */
import { GatewayError } from '../base/errors.ts';
import type { Caller } from '../identity/principals/principals.ts';
import type { ResourceSubscription, SubscribeRequest } from '../mcp/server/tool-backend.ts';
import { namespacedId } from '../sources/remote-mcp/remote-feature-contract.ts';
import { isSubscribable } from '../sources/remote-mcp/remote-features.ts';
import { decideFeatureRead } from './decision.ts';
import { type FeatureView, notFoundOf, splitResource } from './feature-names.ts';
import { type Forwarding, REMOTE_READ } from './named-request.ts';

export function subscribe(
  forwarding: Forwarding,
  caller: Caller,
  view: FeatureView,
  request: SubscribeRequest,
): Promise<ResourceSubscription> {
  const { uri, era } = request;
  const [connectionName, upstreamUri] = splitResource(view, uri);
  const opening = {
    caller,
    action: `resources/subscribe ${uri}`,
    trace: request.trace,
    span: request.span,
  };
  return forwarding.audit.run(opening, async (audited) => {
    const decision = audited.decide(() =>
      decideFeatureRead(caller, {
        connection: view.only ?? connectionName,
        item: { kind: 'resource', id: upstreamUri, shown: uri, field: 'uri' },
        unknown: () => new GatewayError('resource_not_found', undefined, { detail: { uri } }),
      }),
    );
    if (!decision.allowed) return audited.refuse(decision);
    audited.allowed(decision.connection.id);
    const { connection, source } = decision;
    if (!isSubscribable((await forwarding.remote.capabilitiesOf(caller, decision, era)) ?? {})) {
      await audited.finish({ reason: 'invalid_params' });
      throw new GatewayError(
        'invalid_params',
        `Invalid params: the server of ${connection.name} does not take resource subscriptions`,
      );
    }
    const named = (serverUri: string) =>
      view.only === undefined ? namespacedId(connection, 'resource', serverUri) : serverUri;
    let letGo: () => Promise<void>;
    try {
      letGo = await audited.upstream(REMOTE_READ, () =>
        forwarding.remote.subscribe(caller, decision, era, upstreamUri, (serverUri) =>
          request.updated(named(serverUri)),
        ),
      );
    } catch (error) {
      const told = notFoundOf(error, 'resources/subscribe', uri) ?? error;
      await audited.failed(error, told).catch(forwarding.audit.report);
      throw told;
    }
    const upstreamHost = new URL(source.endpoint.url).host;
    const kept = { decision: 'allowed', outcome: 'ok', upstreamHost } as const;
    await audited.finish(kept).catch(forwarding.audit.report);
    let ended = false;
    return {
      end: async () => {
        if (ended) return;
        ended = true;
        await letGo();
        await audited
          .also({ ...kept, action: `resources/unsubscribe ${uri}` })
          .catch(forwarding.audit.report);
      },
    };
  });
}
