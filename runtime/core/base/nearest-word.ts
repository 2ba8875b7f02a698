/**
 * The valid word a person most likely meant when they typed another: the
 * closest by edit distance (fastest-levenshtein), if it is close enough to be
 * a typo rather than a different word.
 */
import { closest, distance } from 'fastest-levenshtein';

export function nearestWord(given: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0 || given === '') return undefined;
  const lower = given.toLowerCase();
  const best = closest(lower, [...candidates]);
  // A transposition costs two edits; beyond a third of the word it is another word.
  return distance(lower, best) <= Math.max(2, Math.ceil(given.length / 3)) ? best : undefined;
}

/** `; did you mean x?` when a near word exists, else nothing. */
export function didYouMean(given: string, candidates: readonly string[]): string {
  const near = nearestWord(given, candidates);
  return near === undefined || near === given ? '' : `; did you mean ${near}?`;
}
