import { describe, expect, it } from 'vitest';
import {
  type ReviewState,
  reviewStateOf,
} from '../../../../runtime/core/governance/review-state.ts';

describe('reviewStateOf', () => {
  it.each<[string, { given: Parameters<typeof reviewStateOf>[0]; want: ReviewState }]>([
    [
      'never reviewed',
      { given: { state: 'quarantined', reviewedHash: null, currentHash: 'h1' }, want: 'new' },
    ],
    [
      'never reviewed, then disabled',
      { given: { state: 'disabled', reviewedHash: null, currentHash: 'h1' }, want: 'new' },
    ],
    [
      'reviewed at this contract',
      { given: { state: 'enabled', reviewedHash: 'h1', currentHash: 'h1' }, want: 'reviewed' },
    ],
    [
      'reviewed at another contract',
      { given: { state: 'enabled', reviewedHash: 'h1', currentHash: 'h2' }, want: 'changed' },
    ],
    [
      'reclassified as riskier',
      { given: { state: 'quarantined', reviewedHash: 'h1', currentHash: 'h1' }, want: 'changed' },
    ],
    [
      'left its source',
      { given: { state: 'retired', reviewedHash: 'h1', currentHash: 'h2' }, want: 'retired' },
    ],
    [
      'left its source unreviewed',
      { given: { state: 'retired', reviewedHash: null, currentHash: 'h1' }, want: 'retired' },
    ],
  ])('%s', (_name, { given, want }) => {
    expect(reviewStateOf(given)).toBe(want);
  });
});
