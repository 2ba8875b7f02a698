/**
 * How long a registered client lives (dynamic registration would otherwise
 * keep every one forever): one no member approved is deleted a day after it
 * registered, and one whose every consent was revoked is deleted once none
 * changed for 30 days. A client with an active consent, or a token family
 * still live, is never deleted. The sweep runs with each registration, the
 * one way rows are added, so they never pile up (no timer to keep).
 */
import type { ClientPruneCutoffs } from '../../ports/store.ts';

/** A client no member approved within this long after registering is deleted. */
export const UNAPPROVED_CLIENT_TTL_MS = 86_400_000;
/** A client whose consents are all revoked is deleted once none changed for this long. */
export const UNUSED_CLIENT_TTL_MS = 30 * 86_400_000;

export function clientPruneCutoffs(now: Date): ClientPruneCutoffs {
  const at = now.getTime();
  return {
    unapprovedBefore: new Date(at - UNAPPROVED_CLIENT_TTL_MS).toISOString(),
    unusedBefore: new Date(at - UNUSED_CLIENT_TTL_MS).toISOString(),
    now: now.toISOString(),
  };
}
