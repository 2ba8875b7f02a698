/**
 * Where an action stands with its review, as listings say it: `new` (never
 * reviewed), `changed` (reviewed once, its contract or class has changed
 * since), `retired` (its source offers it no more) or `reviewed` (the
 * contract served is the one reviewed).
 */
import type { ActionPolicy } from '../model/governance.ts';

export type ReviewState = 'new' | 'changed' | 'retired' | 'reviewed';

export function reviewStateOf(
  policy: Pick<ActionPolicy, 'state' | 'reviewedHash' | 'currentHash'>,
): ReviewState {
  if (policy.state === 'retired') return 'retired';
  if (policy.reviewedHash === null) return 'new';
  // A reviewed action quarantined again was reclassified as riskier (`contract-sync.ts`).
  if (policy.reviewedHash !== policy.currentHash || policy.state === 'quarantined')
    return 'changed';
  return 'reviewed';
}
