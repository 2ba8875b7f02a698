import { defineConfig } from 'vitest/config';

/**
 * Files run in a random order: every file must pass alone and after any
 * other. `VITEST_SHUFFLE_TESTS=1` shuffles the tests inside each file too.
 * The order comes from one seed, which Vitest prints first (`Running tests
 * with seed "…"`); `VITEST_SEED=<seed>` replays it (docs/testing.md).
 */
const seed = Number(process.env.VITEST_SEED ?? Date.now() % 1_000_000);
if (!Number.isSafeInteger(seed)) {
  throw new TypeError(`VITEST_SEED must be an integer, not ${process.env.VITEST_SEED}`);
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    sequence: { shuffle: { files: true, tests: process.env.VITEST_SHUFFLE_TESTS === '1' }, seed },
  },
});
