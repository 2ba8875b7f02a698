/**
 * Text a server, an agent or a person wrote, made inert before it is shown:
 * Preact writes it as a text node (never markup), and every control or
 * invisible format character (a bidirectional override, a zero-width space)
 * is written as a visible escape, as on the terminal.
 */
import { inertText } from '../../core/base/inert-text.ts';

export function shown(text: unknown): string {
  return inertText(typeof text === 'string' ? text : (JSON.stringify(text) ?? ''), { lines: true });
}
