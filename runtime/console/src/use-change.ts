/**
 * A change a page makes through the gateway: `run` clears the last refusal,
 * makes the call, and on success keeps what was done (`done`, for the page's
 * notice) and tells `after`; a refusal is kept in `error`, for `Problem`.
 */
import { useState } from 'preact/hooks';

export function useChange(after?: (done: string) => void) {
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState('');
  /** A change made, here or by a section of the page: shown as done, and `after` told. */
  const record = (text: string) => {
    setError(undefined);
    setDone(text);
    after?.(text);
  };
  /** Whether the gateway made the change. */
  const run = async (call: () => Promise<unknown>, text: string): Promise<boolean> => {
    setError(undefined);
    setDone('');
    try {
      await call();
      record(text);
      return true;
    } catch (problem) {
      setError(problem);
      return false;
    }
  };
  return { error, done, run, record };
}
