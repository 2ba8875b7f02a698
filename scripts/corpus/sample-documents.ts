/**
 * A seeded sample of a corpus: `count` documents picked by a seeded shuffle
 * of the files in code-unit order, so one seed names one sample on every
 * machine. Documents whose path matches `include` are always in it (they
 * count towards `count`). The sample keeps the run's order (largest first).
 */
import type { CorpusDocument } from './find-documents.ts';

export interface SampleOptions {
  count: number;
  seed: number;
  include?: RegExp;
}

export function sampleDocuments(
  documents: readonly CorpusDocument[],
  { count, seed, include }: SampleOptions,
): CorpusDocument[] {
  const byName = [...documents].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const random = mulberry32(seed);
  for (let i = byName.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [byName[i], byName[j]] = [byName[j]!, byName[i]!];
  }
  const wanted = include === undefined ? [] : byName.filter((d) => include.test(d.file));
  const rest = byName.filter((d) => !wanted.includes(d));
  const picked = new Set([...wanted, ...rest].slice(0, Math.max(count, wanted.length)));
  return documents.filter((d) => picked.has(d));
}

/** A small seeded generator (Mulberry32): the same numbers for the same seed everywhere. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
