/**
 * The rate limits of governed calls: a token bucket per agent and one per
 * connection (`takeTokens` of the shared state, so every replica takes from
 * the same buckets). A limit is the operator's override for that agent or
 * connection (the governance snapshot, so a change reaches every replica on
 * its next call), else the configured default, else none.
 *
 * Charged after the decision allowed the call: a call the policy refused
 * costs no token. A call takes from its agent's and its connection's
 * buckets together, in one step (one round trip to Redis): a token from
 * each, or from neither when either is empty, so a refused call costs no
 * bucket anything.
 */
import type { Classification } from '../../../generated/catalog-format.ts';
import { deniedMessage, GatewayError } from '../base/errors.ts';
import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import type { Caller } from '../identity/principals/principals.ts';
import type { Agent, Connection } from '../model/governance.ts';
import type { RateLimitSubject } from '../model/rate-limits.ts';
import type { SharedState } from '../ports/shared-state/shared-state.ts';
import {
  type Bucket,
  type BucketRule,
  retryAfterSeconds,
} from '../ports/shared-state/token-bucket.ts';
import type { AuditedCall } from './audited-call.ts';

export interface CallLimitDefaults {
  agent: BucketRule | undefined;
  connection: BucketRule | undefined;
}

/** What a call is charged as. */
export interface ChargedCall {
  agent: Agent;
  connection: Connection;
  /** The action as the refusal names it. */
  action: string;
  classification: Classification;
}

/**
 * Charges an allowed call to `limits` (none: nothing to charge): the
 * `rate_limited` refusal, or undefined. A shared state that cannot be
 * reached fails the call with its `state_unavailable`, audited as such.
 */
export async function chargeLimits(
  audited: AuditedCall,
  limits: CallLimits | undefined,
  caller: Caller,
  call: ChargedCall,
): Promise<GatewayError | undefined> {
  if (limits === undefined) return undefined;
  try {
    return await limits.charge(caller.snapshot, call);
  } catch (error) {
    await audited.failed(error);
    throw error;
  }
}

/** The key of a subject's bucket in the shared state. */
export const bucketKey = (subject: RateLimitSubject, id: string) => `rate:${subject}:${id}`;

export class CallLimits {
  readonly #state: SharedState;
  readonly #defaults: CallLimitDefaults;

  constructor(state: SharedState, defaults: CallLimitDefaults) {
    this.#state = state;
    this.#defaults = defaults;
  }

  /** Takes the call's tokens: undefined when it may go on, else the `rate_limited` refusal. */
  async charge(snapshot: GovernanceSnapshot, call: ChargedCall): Promise<GatewayError | undefined> {
    const limits: Array<{ of: RateLimitSubject; bucket: Bucket }> = [];
    const agentRule = snapshot.rateLimitOf('agent', call.agent.id) ?? this.#defaults.agent;
    if (agentRule !== undefined)
      limits.push({ of: 'agent', bucket: bucketOf('agent', call.agent.id, agentRule) });
    const connectionRule =
      snapshot.rateLimitOf('connection', call.connection.id) ?? this.#defaults.connection;
    if (connectionRule !== undefined)
      limits.push({
        of: 'connection',
        bucket: bucketOf('connection', call.connection.id, connectionRule),
      });
    if (limits.length === 0) return undefined;
    const take = await this.#state.takeTokens(limits.map((limit) => limit.bucket));
    if (take.granted) return undefined;
    const { of, bucket } = limits[take.refusedBy]!;
    const seconds = retryAfterSeconds(take.retryAfterMs);
    const { perMinute, burst } = bucket.rule;
    const message = deniedMessage('rate_limited', {
      agent: call.agent.name,
      connection: call.connection.name,
      action: call.action,
      classification: call.classification,
      grantScope: undefined,
      limit: { of, perMinute, burst, retryAfterSeconds: seconds },
    });
    return new GatewayError('rate_limited', `${call.action}: ${message}`, {
      detail: { limit: of, perMinute, burst, retryAfterSeconds: seconds },
    });
  }
}

/** A subject's bucket: its key in the shared state, and its rule (only the figures). */
function bucketOf(subject: RateLimitSubject, id: string, rule: BucketRule): Bucket {
  return {
    key: bucketKey(subject, id),
    rule: { perMinute: rule.perMinute, burst: rule.burst },
  };
}
