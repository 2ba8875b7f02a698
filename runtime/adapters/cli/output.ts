/**
 * What the `portcullis` command prints: aligned tables and messages for
 * people (colour only on a TTY), JSON for scripts. Everything shown to people
 * goes through here and is made inert for the terminal first (a server's
 * escape sequences are shown, never obeyed); JSON stays exact.
 */
import { inertText } from '../../core/base/inert-text.ts';

export interface Output {
  json: boolean;
  colour: boolean;
  write(text: string): void;
  error(text: string): void;
}

export function terminalOutput(json: boolean): Output {
  const colour = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  return {
    json,
    colour,
    write: (text) => process.stdout.write(text),
    error: (text) => process.stderr.write(text),
  };
}

/** A table cell shown in a colour (on a TTY). */
export interface Styled {
  text: string;
  style: Style;
}

export type Row = Record<string, string | number | boolean | null | undefined | Styled>;

export function styled(style: Style, text: string): Styled {
  return { text, style };
}

/** One line of text for the table or a message, whatever it holds (line breaks escaped too). */
export function inert(text: string): string {
  return inertText(text);
}

export function printRows(
  out: Output,
  rows: readonly Row[],
  columns: readonly string[],
  raw: unknown = rows,
): void {
  if (out.json) {
    out.write(`${JSON.stringify(raw, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    out.write('(none)\n');
    return;
  }
  const cells = rows.map((row) => columns.map((c) => cellOf(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.text.length)));
  const line = (values: readonly Styled[]) =>
    values
      .map(({ text, style }, i) => {
        const padded = text.padEnd(widths[i]!);
        return style === 'plain' ? padded : paint(out, style, padded);
      })
      .join('  ')
      .trimEnd();
  out.write(`${line(columns.map((c) => styled('bold', c.toUpperCase())))}\n`);
  for (const row of cells) out.write(`${line(row)}\n`);
}

function cellOf(value: Row[string]): Styled {
  if (typeof value === 'object' && value !== null)
    return { text: inertText(value.text), style: value.style };
  return { text: inertText(String(value ?? '')), style: 'plain' };
}

/** A value: its JSON for scripts, the text (made inert, its own line breaks kept) for people. */
export function printValue(out: Output, value: unknown, text: string): void {
  out.write(out.json ? `${JSON.stringify(value, null, 2)}\n` : `${inertText(text, LINES)}\n`);
}

/** Text for people only (a listing's notes), made inert, its own line breaks kept. */
export function printText(out: Output, text: string): void {
  if (!out.json) out.write(inertText(text, LINES));
}

/** A refusal on stderr: exact JSON for scripts, inert text for people. */
export function printProblem(out: Output, text: string): void {
  out.error(out.json ? text : inertText(text, LINES));
}

const LINES = { lines: true } as const;

const CODES = {
  bold: [1, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  dim: [2, 22],
} as const;

type Style = keyof typeof CODES | 'plain';

function paint(out: Output, style: keyof typeof CODES, text: string): string {
  if (!out.colour) return text;
  const [on, off] = CODES[style];
  return `\u001b[${on}m${text}\u001b[${off}m`;
}
