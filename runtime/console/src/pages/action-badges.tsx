/**
 * What an action is, as small labels beside its name: its class (read,
 * write, destructive: the last two in the caution and danger colours, so a
 * destructive action never looks like a read) and, for a remote server's
 * action that is not a tool, its kind (a prompt, a resource or a resource
 * template, reviewed and switched like its tools).
 */
import type { ActionView } from '../types.ts';

export function ClassBadge({ action }: { action: Pick<ActionView, 'classification'> }) {
  return <span class={`badge class-${action.classification}`}>{action.classification}</span>;
}

const KINDS = { prompt: 'prompt', resource: 'resource', template: 'resource template' } as const;

export function FeatureKind({ action }: { action: Pick<ActionView, 'kind'> }) {
  const label = KINDS[action.kind as keyof typeof KINDS];
  return label ? <span class="badge badge-kind">{label}</span> : null;
}
