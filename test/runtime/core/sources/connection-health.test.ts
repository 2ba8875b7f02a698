import { describe, expect, it } from 'vitest';
import {
  type CallOutcome,
  type HealthState,
  nextHealth,
} from '../../../../runtime/core/sources/connection-health.ts';

function run(
  outcomes: CallOutcome[],
  from: HealthState = { health: 'ok', failureStreak: 0 },
): HealthState {
  return outcomes.reduce(nextHealth, from);
}

describe('nextHealth', () => {
  it.each<[string, { given: CallOutcome[]; want: HealthState['health'] }]>([
    ['one failure changes nothing yet', { given: ['failure'], want: 'ok' }],
    ['a streak of failures degrades it', { given: ['failure', 'failure'], want: 'degraded' }],
    [
      'a longer streak is an error',
      { given: ['failure', 'failure', 'failure', 'failure', 'failure'], want: 'error' },
    ],
    [
      'one success makes it ok again',
      { given: ['failure', 'failure', 'failure', 'failure', 'failure', 'success'], want: 'ok' },
    ],
    ['a success breaks the streak', { given: ['failure', 'success', 'failure'], want: 'ok' }],
    [
      'a bad reply (neutral) changes nothing',
      { given: ['neutral', 'neutral', 'neutral', 'neutral', 'neutral', 'neutral'], want: 'ok' },
    ],
    [
      'a bad reply neither breaks nor extends a streak',
      // Four failures: a break would leave one (ok), an extension six (error).
      {
        given: ['failure', 'neutral', 'failure', 'failure', 'neutral', 'failure'],
        want: 'degraded',
      },
    ],
  ])('%s', (_name, { given, want }) => {
    expect(run(given).health).toBe(want);
  });
});
