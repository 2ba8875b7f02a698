/**
 * A server's capabilities, as the prompts, resources (and whether it takes
 * subscriptions to them) and completions it serves (what is recorded).
 */
import { isPlainObject } from '../../base/json-value.ts';
import type { McpEra } from '../../mcp/wire/protocol-version.ts';
import type { RemoteFeatures } from '../../model/remote.ts';

export function featuresOf(capabilities: Record<string, unknown>): RemoteFeatures {
  return {
    prompts: capabilities.prompts !== undefined,
    resources: capabilities.resources !== undefined,
    completions: capabilities.completions !== undefined,
    subscribe: isSubscribable(capabilities),
  };
}

/** Whether a server's capabilities say it takes resource subscriptions. */
export function isSubscribable(capabilities: Record<string, unknown>): boolean {
  return isPlainObject(capabilities.resources) && capabilities.resources.subscribe === true;
}

/** What a caller of `era` is served: a 2025 caller the server's 2025 wire's, where it was recorded. */
export function featuresFor(features: RemoteFeatures, era: McpEra | undefined): RemoteFeatures {
  return era === 'legacy' && features.legacyWire !== undefined ? features.legacyWire : features;
}

export function sameFeatures(a: RemoteFeatures | null, b: RemoteFeatures | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.prompts === b.prompts &&
    a.resources === b.resources &&
    a.completions === b.completions &&
    (a.subscribe ?? false) === (b.subscribe ?? false) &&
    sameFeatures(a.legacyWire ?? null, b.legacyWire ?? null)
  );
}
