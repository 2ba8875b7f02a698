/**
 * How often search puts the right action first (recall at 1) and among the
 * first five (recall at 5), over the labelled requests, with the index built
 * over every compiled action and the curated remote servers' tools: the set
 * the synonyms and weights were shaped on, and a held-out set never tuned
 * on. The floors are the figures reached, rounded down a little: a change to
 * the words, weights or library that loses recall fails here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { providers, remotes } from '../../../../generated/index.ts';
import { ActionIndex, searchActions } from '../../../../runtime/core/discovery/action-index.ts';
import { everyAction } from '../../../support/discovery.ts';
import { HELD_OUT_REQUESTS } from './held-out-requests.ts';
import { type LabelledRequest, REQUESTS } from './requests.ts';

/** Each set, and the floors of its recall at 1 and at 5 (measured over 744 actions). */
const SETS: Array<[string, readonly LabelledRequest[], { atOne: number; atFive: number }]> = [
  // Measured 0.784 and 0.976 over 125 requests.
  ['the labelled requests', REQUESTS, { atOne: 0.76, atFive: 0.96 }],
  // Measured 0.707 and 0.927 over 41 requests.
  ['the held-out requests', HELD_OUT_REQUESTS, { atOne: 0.68, atFive: 0.9 }],
];

describe('search recall over the labelled requests', () => {
  let index: ActionIndex;
  beforeAll(() => {
    index = new ActionIndex(everyAction());
  });

  it('has at least 100 requests across every compiled provider and curated server', () => {
    expect(REQUESTS.length).toBeGreaterThanOrEqual(100);
    const connections = new Set(
      REQUESTS.flatMap(([, expected]) => expected.map((name) => index.get(name)?.connection)),
    );
    for (const { id } of [...providers, ...remotes]) expect(connections).toContain(id);
  });

  it.each(
    [...REQUESTS, ...HELD_OUT_REQUESTS].map(([query, expected]) => [query, expected] as const),
  )('%s: labels actions that exist, and is not their names', (query, expected) => {
    for (const name of expected) {
      const action = index.get(name);
      expect(action, name).toBeDefined();
      const own = name.slice(name.lastIndexOf(action!.connection) + action!.connection.length);
      const words = own.replace(/^_+/, '').replace(/_/g, ' ');
      // A one-word name (`version`) may be the word a person uses.
      if (words.includes(' ')) expect(query.toLowerCase()).not.toContain(words);
    }
  });

  it.each(SETS)(
    'finds the right action first and among the first five as often as it did: %s',
    (name, requests, floors) => {
      let atOne = 0;
      let atFive = 0;
      for (const [query, expected] of requests) {
        const rank = searchActions(index, { query, limit: 5 }).findIndex((result) =>
          expected.includes(result.action),
        );
        if (rank === 0) atOne++;
        if (rank >= 0) atFive++;
      }
      const recallAt1 = atOne / requests.length;
      const recallAt5 = atFive / requests.length;
      console.log(
        `discovery recall over ${name} (${requests.length}), ${index.size} actions: ` +
          `@1 ${recallAt1.toFixed(3)}, @5 ${recallAt5.toFixed(3)}`,
      );
      expect(recallAt1).toBeGreaterThanOrEqual(floors.atOne);
      expect(recallAt5).toBeGreaterThanOrEqual(floors.atFive);
    },
  );
});
