/**
 * What a remote server's action is when it is not a tool: a prompt, a
 * resource or a resource template, reviewed and switched like its tools.
 * Nothing for a tool.
 */
import type { ActionView } from '../types.ts';

const LABELS = { prompt: 'prompt', resource: 'resource', template: 'resource template' } as const;

export function FeatureKind({ action }: { action: Pick<ActionView, 'kind'> }) {
  const label = LABELS[action.kind as keyof typeof LABELS];
  return label ? <span class="badge badge-kind">{label}</span> : null;
}
