/** A server's capabilities, as the prompts, resources and completions it serves (what is recorded). */
import type { RemoteFeatures } from './remote-model.ts';

export function featuresOf(capabilities: Record<string, unknown>): RemoteFeatures {
  return {
    prompts: capabilities.prompts !== undefined,
    resources: capabilities.resources !== undefined,
    completions: capabilities.completions !== undefined,
  };
}

export function sameFeatures(a: RemoteFeatures | null, b: RemoteFeatures | null): boolean {
  if (a === null || b === null) return a === b;
  return a.prompts === b.prompts && a.resources === b.resources && a.completions === b.completions;
}
