/**
 * A connection's health from the outcomes of its calls. A streak of transport
 * failures or 5xx replies marks it degraded, then error; one success marks it
 * ok. A reply that is too large or malformed is about that call (its
 * arguments, its data), not the connection, and changes nothing.
 */
import type { ConnectionHealth } from '../model/governance.ts';

export type CallOutcome = 'success' | 'failure' | 'neutral';

const DEGRADED_AFTER = 2;
const ERROR_AFTER = 5;

export interface HealthState {
  health: ConnectionHealth;
  failureStreak: number;
}

export function nextHealth(state: HealthState, outcome: CallOutcome): HealthState {
  switch (outcome) {
    case 'neutral':
      return state;
    case 'success':
      return { health: 'ok', failureStreak: 0 };
    case 'failure': {
      const failureStreak = state.failureStreak + 1;
      const health: ConnectionHealth =
        failureStreak >= ERROR_AFTER
          ? 'error'
          : failureStreak >= DEGRADED_AFTER
            ? 'degraded'
            : state.health;
      return { health, failureStreak };
    }
  }
}
