/** Revoking something an agent or a client holds (an agent's key, a grant, a consent): the button, naming what it revokes for a screen reader. */
import { shown } from '../shown.ts';

export function RevokeButton({
  what,
  disabled = false,
  onRevoke,
}: {
  what: string;
  disabled?: boolean;
  onRevoke: () => void;
}) {
  return (
    <button type="button" class="small" disabled={disabled} onClick={onRevoke}>
      Revoke <span class="skip">{shown(what)}</span>
    </button>
  );
}
