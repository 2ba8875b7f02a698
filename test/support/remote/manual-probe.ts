/** The background re-probe of a test gateway, run by hand (`check()`), on a clock the test moves. */
import type { OperatorContext } from '../../../runtime/core/operator/context.ts';
import {
  type HealthProbeOptions,
  RemoteHealthProbe,
} from '../../../runtime/core/sources/remote-mcp/health-probe.ts';

export function manualProbe(
  ctx: OperatorContext,
  options: Pick<HealthProbeOptions, 'now' | 'refresh'> = {},
): RemoteHealthProbe {
  return new RemoteHealthProbe({
    store: ctx.store,
    vault: ctx.vault,
    client: ctx.remote!.client,
    tokens: ctx.remote!.tokens,
    ...options,
  });
}
