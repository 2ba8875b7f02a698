/**
 * Removing something for good (a member, a machine client): a first click
 * asks, naming what goes with it; the second removes; Cancel steps back.
 */
import { useState } from 'preact/hooks';
import { shown } from '../shown.ts';

export function RemoveButton({
  what,
  alsoGoes,
  onRemove,
}: {
  /** The name of what is removed (shown as text, and for a screen reader). */
  what: string;
  /** What is removed with it, as the confirming button says ("and its agent"). */
  alsoGoes: string;
  onRemove: () => Promise<unknown>;
}) {
  const [confirming, setConfirming] = useState(false);
  return confirming ? (
    <>
      <button
        type="button"
        class="small danger"
        onClick={() => onRemove().then(() => setConfirming(false))}
      >
        Remove {shown(what)} {alsoGoes}
      </button>
      <button type="button" class="small" onClick={() => setConfirming(false)}>
        Cancel
      </button>
    </>
  ) : (
    <button type="button" class="small" onClick={() => setConfirming(true)}>
      Remove <span class="skip">{shown(what)}</span>
    </button>
  );
}
