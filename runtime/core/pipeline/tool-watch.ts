/**
 * Telling listening agents that the tools they see changed. A change of
 * grants, policies, connections or catalogs moves the store's revision,
 * whoever made it (this process, the `portcullis` command, another replica);
 * while anyone listens this listens to the revision watch (its check twice a
 * second, and at once when told of a change), and each listener whose
 * visible tools differ from what it last saw is called.
 */
import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import { toolNameFor } from '../governance/tool-names.ts';
import { LazySubscription } from '../ports/shared-state/lazy-subscription.ts';
import type { SharedState } from '../ports/shared-state/shared-state.ts';
import type { RevisionWatch } from './revision-watch.ts';

export interface WatchedCaller {
  readonly agentId: string;
  readonly workspaceId: string;
}

export interface ToolWatchOptions {
  /** Told about a failed announcement (the operator's log). */
  report?: (error: unknown) => void;
  /** Where replicas tell each other of a change, so listeners learn of it at once. */
  state?: SharedState;
}

interface Listener {
  caller: WatchedCaller;
  /** The snapshot `seen` was read from: a listener compares from its own, whatever others saw. */
  snapshot: GovernanceSnapshot | undefined;
  seen: string;
  notify: () => void;
}

const CHANNEL = 'governance:changed';

export class ToolWatch {
  readonly #revisions: RevisionWatch;
  readonly #report: (error: unknown) => void;
  readonly #listeners = new Set<Listener>();
  /** Stops listening to the revision watch; set while anyone listens here. */
  #unlisten: (() => void) | undefined;
  #snapshot: GovernanceSnapshot | undefined;
  readonly #state: SharedState | undefined;
  readonly #changes: LazySubscription | undefined;

  constructor(revisions: RevisionWatch, options: ToolWatchOptions = {}) {
    this.#revisions = revisions;
    this.#report = options.report ?? (() => {});
    this.#state = options.state;
    this.#changes =
      options.state && new LazySubscription(options.state, CHANNEL, () => void this.check());
  }

  /** Tells every replica's listeners to check now (after an operator's change). */
  announce(): void {
    if (this.#state === undefined) {
      void this.check();
      return;
    }
    this.#state.publish(CHANNEL, 'changed').catch(this.#report);
  }

  /**
   * A connection's server said its tool list changed: after it was discovered
   * again, every listener here that sees that connection's tools hears it
   * too, whether or not what it sees changed (a client asks again, as it
   * would of the server itself).
   */
  touched(connectionId: string): void {
    for (const listener of this.#listeners) {
      const snapshot = listener.snapshot ?? this.#snapshot;
      const agent = snapshot?.agentById(listener.caller.agentId);
      if (!snapshot || !agent || agent.workspaceId !== listener.caller.workspaceId) continue;
      if (snapshot.visibleTools(agent).some((target) => target.connection.id === connectionId))
        listener.notify();
    }
  }

  close(): void {
    this.#unlisten?.();
    this.#unlisten = undefined;
    this.#listeners.clear();
    this.#changes?.close(this.#report);
  }

  get listening(): number {
    return this.#listeners.size;
  }

  /** Calls `notify` whenever what `caller` sees changes; returns what stops it. */
  watch(caller: WatchedCaller & { snapshot?: GovernanceSnapshot }, notify: () => void): () => void {
    const snapshot = caller.snapshot ?? this.#snapshot;
    const listener: Listener = {
      caller,
      snapshot,
      seen: snapshot === undefined ? '' : visibleToolsOf(snapshot, caller),
      notify,
    };
    this.#listeners.add(listener);
    this.#unlisten ??= this.#revisions.listen({
      beforeCheck: () => this.#listeners.size > 0,
      checked: (checked) => this.#checked(checked),
    });
    this.#changes?.ready().catch(this.#report);
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size > 0) return;
      this.#unlisten?.();
      this.#unlisten = undefined;
    };
  }

  /** Checks now (the revision watch's one check): a change someone just made reaches listeners at once. */
  check(): Promise<void> {
    return this.#revisions.check();
  }

  #checked(snapshot: GovernanceSnapshot): void {
    this.#snapshot = snapshot;
    for (const listener of this.#listeners) {
      if (listener.snapshot === snapshot) continue;
      listener.snapshot = snapshot;
      const seen = visibleToolsOf(snapshot, listener.caller);
      if (seen === listener.seen) continue;
      listener.seen = seen;
      listener.notify();
    }
  }
}

/**
 * What a caller sees, as text to compare: its tools mode, and each visible
 * tool's name and contract (what it lists directly, or finds by search in
 * discovery mode: a change of either is told alike).
 */
function visibleToolsOf(snapshot: GovernanceSnapshot, caller: WatchedCaller): string {
  const agent = snapshot.agentById(caller.agentId);
  if (
    agent === undefined ||
    agent.workspaceId !== caller.workspaceId ||
    agent.status !== 'active'
  ) {
    return '';
  }
  return [
    `mode ${snapshot.toolsModeOf(agent)}`,
    ...snapshot
      .visibleTools(agent)
      .map(
        ({ connection, action }) =>
          `${toolNameFor(connection, action.name)} ${action.contractHash}`,
      ),
  ].join('\n');
}
