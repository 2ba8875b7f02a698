/** Turning a connection's actions on or off: the button, naming what it turns for a screen reader. */
import type { ActionVerb } from '../action-changes.ts';
import { shown } from '../shown.ts';

export function TurnButton({
  verb,
  what,
  disabled,
  onTurn,
}: {
  verb: Exclude<ActionVerb, 'review'>;
  /** What it turns on or off (an action's name, a class). */
  what: string;
  disabled: boolean;
  onTurn: () => void;
}) {
  return (
    <button type="button" class="small" disabled={disabled} onClick={onTurn}>
      {verb === 'ask' ? 'Ask first' : `Turn ${verb === 'enable' ? 'on' : 'off'}`}{' '}
      <span class="skip">{shown(what)}</span>
    </button>
  );
}
