/**
 * The approvers' admin API as the held-calls tests read it: its path, its
 * JSON replies, and the pending approval of a call once the gateway holds it.
 */
import type { adminClient } from '../gateway.ts';

/** The approvers' admin API. */
export const APPROVALS = '/workspaces/default/approvals';

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON replies field by field
export type Json = Record<string, any>;

/** The pending approval of the call with `args`, once the gateway behind `admin` holds it (the test's timeout bounds the wait). */
export async function heldApproval(
  admin: ReturnType<typeof adminClient>,
  args: unknown,
): Promise<Json> {
  for (;;) {
    const found = ((await admin('GET', APPROVALS)).body as Json[]).find(
      (a) => JSON.stringify(a.arguments) === JSON.stringify(args),
    );
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
