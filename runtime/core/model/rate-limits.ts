/** Rate limits: what an operator set for one agent or one connection, over the configured default. */

/** What a limit is of: every call of one agent, or every call on one connection. */
export type RateLimitSubject = 'agent' | 'connection';

export interface RateLimitOverride {
  id: string;
  workspaceId: string;
  subject: RateLimitSubject;
  /** The agent's or the connection's id. */
  subjectId: string;
  /** Calls a minute, refilled continuously. */
  perMinute: number;
  /** Calls that may come at once. */
  burst: number;
  updatedAt: string;
}
