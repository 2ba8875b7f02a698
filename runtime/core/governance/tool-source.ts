/**
 * Where a connection's tools come from. A native REST connection's are its
 * provider's compiled catalog; a remote MCP connection's are the tool list
 * pinned when it was connected. Either way every action has a name, a
 * classification, annotations, an input schema and a contract hash, so
 * review, quarantine, stale-contract blocking and retirement are one mechanism
 * for both, and an executor of the source's kind runs the calls.
 */
import type { ValidateFunction } from 'ajv';
import type { Classification, ToolAnnotations } from '../../../generated/catalog-format.ts';
import type { Connection } from '../model/governance.ts';
import type { Store } from '../ports/store.ts';

/** The transports a governed call can go out on; one executor each. */
export type ToolSourceKind = 'native_rest' | 'remote_mcp';

/** What governance and the agent's tool list need of any action. */
export interface GovernedAction {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly classification: Classification;
  readonly annotations: ToolAnnotations;
  /** JSON Schema 2020-12, what the arguments are validated against. */
  readonly inputSchema: Record<string, unknown>;
  /** sha256 over everything an agent or the executor relies on. */
  readonly contractHash: string;
}

export interface ToolSource<A extends GovernedAction = GovernedAction> {
  readonly kind: ToolSourceKind;
  readonly actions: readonly A[];
  action(name: string): A | undefined;
  /** The compiled input-schema validator of one of its actions. */
  validatorFor(action: A): ValidateFunction;
  /** Whether a call of the action goes out with the connection's (or the agent's) credential. */
  sendsCredential(action: A): boolean;
}

/** A tool as one workspace sees it: which connection, from which source, which action. */
export interface ToolTarget<S extends ToolSource = ToolSource> {
  connection: Connection;
  source: S;
  action: S extends ToolSource<infer A> ? A : never;
}

/** The tool source of each connection. */
export interface ToolSources {
  of(connection: Connection): ToolSource | undefined;
  /**
   * The sources as the store holds them now (a remote connection's pinned
   * tools are rows), read by each governance snapshot in its transaction.
   */
  read?(store: Store): Promise<ToolSources>;
}
