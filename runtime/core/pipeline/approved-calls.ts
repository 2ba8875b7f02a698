/**
 * Approvals approved, told to every replica (docs/approvals.md): the verb
 * that approves runs the call here and publishes the approval's id on the
 * shared state (Redis when configured); each replica that hears it tries
 * the same. The claim in the store (approved → executed, a compare-and-set)
 * lets one of them run it; the others find it claimed and do nothing. A
 * message lost (the shared state down) leaves the call to its task's next
 * `tasks/get`, which claims it the same way.
 */
import { LazySubscription } from '../ports/shared-state/lazy-subscription.ts';
import type { SharedState } from '../ports/shared-state/shared-state.ts';

const CHANNEL = 'approvals:approved';

export interface ApprovedCallsOptions {
  state: SharedState;
  /** Runs the approval's call if this replica claims it (`GovernedTools.runApproved`); never throws. */
  run: (id: string) => Promise<void>;
  report: (error: unknown) => void;
}

export class ApprovedCalls {
  readonly #options: ApprovedCallsOptions;
  readonly #heard: LazySubscription;

  constructor(options: ApprovedCallsOptions) {
    this.#options = options;
    this.#heard = new LazySubscription(options.state, CHANNEL, (id) => void options.run(id));
  }

  /** Listens for the approvals other replicas approve. */
  start(): void {
    this.#heard.ready().catch(this.#options.report);
  }

  /** An approval approved here: its call runs here or on whichever replica claims it first. */
  announce(id: string): void {
    void this.#options.run(id);
    this.#options.state.publish(CHANNEL, id).catch(this.#options.report);
  }

  close(): void {
    this.#heard.close(this.#options.report);
  }
}
