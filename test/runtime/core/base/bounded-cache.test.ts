import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../../../runtime/core/base/bounded-cache.ts';

describe('the bounded cache', () => {
  it('computes a key once, and starts over when full', () => {
    const computed: string[] = [];
    const cache = new BoundedCache<string>(2);
    const upper = (key: string) => {
      computed.push(key);
      return key.toUpperCase();
    };
    expect([cache.get('a', upper), cache.get('b', upper), cache.get('a', upper)]).toEqual([
      'A',
      'B',
      'A',
    ]);
    expect(computed).toEqual(['a', 'b']);
    cache.get('c', upper);
    cache.get('a', upper);
    expect(computed).toEqual(['a', 'b', 'c', 'a']);
  });
});
