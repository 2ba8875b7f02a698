/**
 * Text a remote server, a provider document or a pasted config controls,
 * made inert for a terminal: every character that could steer the terminal
 * or hide what is shown (C0 and C1 controls with ESC, BEL and CSI among them,
 * DEL, bidirectional overrides and isolates, zero-width and other invisible
 * format characters, line and paragraph separators) is written as a visible
 * escape (`\x1b`, `\u202e`), so a description can neither set the window
 * title, write the clipboard or clear the screen, nor fake the diff a
 * reviewer approves. Everything else, backslashes included, is kept as is.
 */

/** Terminal controls and invisible format characters (Unicode Cc, Cf, Zl, Zp). */
const NOT_INERT = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

export interface InertTextOptions {
  /** Keep line feeds as line breaks (a multi-line message); otherwise they are escaped too. */
  lines?: boolean;
}

export function inertText(text: string, options: InertTextOptions = {}): string {
  return text.replace(NOT_INERT, (c) => (c === '\n' && options.lines ? c : visibleEscape(c)));
}

function visibleEscape(c: string): string {
  const code = c.codePointAt(0)!;
  if (code === 0x0a) return '\\n';
  if (code === 0x0d) return '\\r';
  if (code === 0x09) return '\\t';
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}
