/**
 * A member's epoch for the upstream tokens exchanged on their behalf: what
 * the exchanged-token entries are keyed by besides whose and what they are,
 * so a change of what the gateway knows of the member puts every token
 * exchanged before out of reach, on every replica, whichever process made
 * the change (the `portcullis` command reaches only the store).
 *
 * It is a hash of the member's `updatedAt` (`idp sync` touches it) and of
 * the sealed subject tokens of their last IdP sign-in (a new sign-in, a sync
 * that reads a fresh ID token, and a sync the IdP refused change them), read
 * from the store once per governance revision: `touch` moves the revision,
 * so each replica reads it again at its next request. A removed member has
 * none: nothing is exchanged for them.
 */
import { createHash } from 'node:crypto';
import { GatewayError } from '../../base/errors.ts';
import type { ActingFor } from '../../model/delegation.ts';
import type { Store } from '../../ports/store.ts';

const MAX_KEPT = 10_000;

export class MemberEpochs {
  readonly #store: Store;
  readonly #kept = new Map<string, { revision: number; epoch: string }>();

  constructor(store: Store) {
    this.#store = store;
  }

  /** The member's epoch as of `acting.readAt` (read again when unknown or moved). */
  async of(acting: ActingFor): Promise<string> {
    const kept = this.#kept.get(acting.memberId);
    if (kept !== undefined && acting.readAt !== undefined && kept.revision === acting.readAt)
      return kept.epoch;
    const member = await this.#store.oauth.members.byId(acting.memberId);
    if (member === undefined)
      throw new GatewayError(
        'idp_session_required',
        'the member this call acts for is no longer a member: nothing is exchanged for them',
      );
    const subject = await this.#store.identity.latestSubjectTokens(acting.memberId);
    const epoch = createHash('sha256')
      .update(`${member.updatedAt}\n${subject?.sealed ?? ''}`)
      .digest('hex')
      .slice(0, 32);
    if (acting.readAt !== undefined) {
      if (this.#kept.size >= MAX_KEPT) this.#kept.clear();
      this.#kept.set(acting.memberId, { revision: acting.readAt, epoch });
    }
    return epoch;
  }
}
