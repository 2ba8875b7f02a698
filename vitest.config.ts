import { defineConfig } from 'vitest/config';

/**
 * Files, and the tests inside each file, run in a random order: every test
 * must pass alone and after any other. The order comes from one seed, which
 * Vitest prints first (`Running tests with seed "…"`); `VITEST_SEED=<seed>`
 * replays it (docs/testing.md).
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
    sequence: { shuffle: true, seed },
  },
});
