/**
 * The two gateways of the approval-expiry tests (docs/approvals.md): on
 * each, approvals expire after `PORTCULLIS_APPROVAL_TTL_S=10` (the least it
 * takes); `brief`'s requests wait a moment, then are told
 * `approval_pending`; `patient`'s wait longer than an approval lives.
 */
import { APPROVALS, type Json } from './approvals-api.ts';
import { type HeldSide, heldSidesForFile } from './held-unikraft.ts';

/** How long an approval lives, in seconds. */
export const APPROVAL_TTL_S = 10;

/** This file's `brief` and `patient`: opened before its tests, closed after them. */
export function expiringSidesForFile(): Record<'brief' | 'patient', HeldSide> {
  const side = (waitMs: number) => ({
    agents: ['asker'],
    environment: {
      PORTCULLIS_APPROVAL_WAIT_MS: String(waitMs),
      PORTCULLIS_APPROVAL_TTL_S: String(APPROVAL_TTL_S),
    },
  });
  return heldSidesForFile({ brief: side(300), patient: side((APPROVAL_TTL_S + 20) * 1000) });
}

/** Waits (the test's timeout bounds it) until the approval `id` on `side` has run out of time. */
export async function pastExpiry(side: HeldSide, id: string): Promise<void> {
  const { expiresAt } = (await side.admin('GET', `${APPROVALS}/${id}`)).body as Json;
  const left = Date.parse(expiresAt) - Date.now();
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
