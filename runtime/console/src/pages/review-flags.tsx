/**
 * An item's review flags as the review page shows them: each names its rule
 * (id and title), the field it is in and the server's flagged text, inert
 * (`shown`: a text node, invisible characters as visible escapes). A flag
 * changes no decision; where the deployment holds flagged items
 * (PORTCULLIS_REVIEW_FLAGGED=block), the gateway refuses an approval with
 * `review_flagged` and `PastFlags` asks the owner or operator to confirm it
 * before approving with force.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { shown } from '../shown.ts';
import type { ReviewFlag } from '../types.ts';

export function FlagCount({ flags }: { flags: ReviewFlag[] | undefined }) {
  if (!flags) return null;
  return (
    <span class="badge flagged">{flags.length === 1 ? '1 flag' : `${flags.length} flags`}</span>
  );
}

export function ReviewFlags({ flags, item }: { flags: ReviewFlag[]; item: string }) {
  return (
    <section class="flags" aria-label={`Review flags of ${shown(item)}`}>
      <p class="flags-head">
        <b>Flagged for review.</b> Read what the server wrote before you approve it; a flag changes
        nothing by itself.
      </p>
      <ul>
        {flags.map((flag, index) => (
          <li key={index} data-rule={flag.rule}>
            <span class="flag-rule">{flag.title}</span> <code>{flag.rule}</code>{' '}
            <span class="note">in {shown(flag.field)}</span>
            {/* The excerpt is bounded by the rules, so the box grows to hold it and never scrolls. */}
            <pre class="flag-text">{shown(flag.excerpt)}</pre>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Whether the gateway refused an approval because this deployment holds flagged items. */
export function heldForFlags(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'review_flagged';
}

interface PastFlagsProps {
  /** What is approved: `get_weather`, or `3 reads`. */
  what: string;
  canChange: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** The confirmation an approval past its flags takes: a box to tick, then the button. */
export function PastFlags({ what, canChange, onConfirm, onCancel }: PastFlagsProps) {
  const [read, setRead] = useState(false);
  const id = `past-flags-${what.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  return (
    <fieldset class="caution past-flags" aria-labelledby={`${id}-head`}>
      <p id={`${id}-head`}>
        This deployment holds flagged items until they are approved past their flags. Approve{' '}
        <b>{shown(what)}</b> all the same?
      </p>
      <label class="check">
        <input
          type="checkbox"
          checked={read}
          disabled={!canChange}
          onChange={(event) => setRead((event.target as HTMLInputElement).checked)}
        />
        <span>I have read the flags and the server's text, and I approve it as it is</span>
      </label>
      <div class="actions">
        <button type="button" class="danger" disabled={!canChange || !read} onClick={onConfirm}>
          Approve past its flags <span class="skip">{shown(what)}</span>
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}
