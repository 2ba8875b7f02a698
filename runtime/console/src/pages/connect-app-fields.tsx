/**
 * A connect form's parts: a setting shown with its default and a Change
 * control (a choice for a list, a host name for a base URL), with a
 * refusal shown under it (`field-error.tsx`).
 */
import type { GallerySetting } from '../gallery-types.ts';
import { shown } from '../shown.ts';
import { FieldError } from './field-error.tsx';

interface SettingProps {
  setting: GallerySetting;
  disabled: boolean;
  /** Whether the control shows (always, for a setting without a default). */
  open: boolean;
  value: string;
  error: unknown;
  onOpen: () => void;
  onChange: (value: string) => void;
}

export function SettingField({
  setting,
  disabled,
  open,
  value,
  error,
  onOpen,
  onChange,
}: SettingProps) {
  const id = `setting-${setting.name}`;
  const title = titleOf(setting);
  const invalid = error !== undefined ? 'true' : undefined;
  return (
    <div class="gallery-field" data-setting={setting.name}>
      {open ? (
        <>
          <label for={id}>{title}</label>
          {setting.kind === 'choice' ? (
            <select
              id={id}
              disabled={disabled}
              value={value}
              aria-invalid={invalid}
              aria-describedby={`${id}-guide ${id}-error`}
              onChange={(e) => onChange(e.currentTarget.value)}
            >
              {(setting.enum ?? []).map((option) => (
                <option key={option} value={option}>
                  {shown(option)}
                  {option === setting.default ? ' (default)' : ''}
                </option>
              ))}
            </select>
          ) : (
            <input
              id={id}
              disabled={disabled}
              autocomplete="off"
              spellcheck={false}
              value={value}
              aria-invalid={invalid}
              aria-describedby={`${id}-guide ${id}-error`}
              onInput={(e) => onChange(e.currentTarget.value)}
            />
          )}
        </>
      ) : (
        <div class="gallery-setting">
          <span id={`${id}-label`} class="gallery-setting-name">
            {title}
          </span>
          <span class="gallery-setting-value">
            <code>{shown(setting.default ?? '')}</code> <span class="note">(default)</span>
          </span>
          <button
            type="button"
            class="gallery-change"
            disabled={disabled}
            aria-describedby={`${id}-label`}
            onClick={onOpen}
          >
            Change
          </button>
        </div>
      )}
      <p class="gallery-guide" id={`${id}-guide`}>
        {shown(setting.description)}
      </p>
      <FieldError field={id} error={error} />
    </div>
  );
}

/** `metro` → `Default metro`; a host setting names the base URL it makes. */
function titleOf(setting: GallerySetting): string {
  const words = setting.name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  if (setting.kind === 'host') return 'Base URL host';
  return setting.default !== undefined
    ? `Default ${words}`
    : words[0]!.toUpperCase() + words.slice(1);
}
