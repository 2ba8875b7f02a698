/** What the `portcullis` command prints: aligned tables for people (colour only on a TTY), JSON for scripts. */

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

export type Row = Record<string, string | number | boolean | null | undefined>;

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
  const cells = rows.map((row) => columns.map((c) => String(row[c] ?? '')));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  out.write(`${paint(out, 'bold', line(columns.map((c) => c.toUpperCase())))}\n`);
  for (const row of cells) out.write(`${line(row)}\n`);
}

export function printValue(out: Output, value: unknown, text: string): void {
  out.write(out.json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

const CODES = {
  bold: [1, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  dim: [2, 22],
} as const;

export function paint(out: Output, style: keyof typeof CODES, text: string): string {
  if (!out.colour) return text;
  const [on, off] = CODES[style];
  return `\u001b[${on}m${text}\u001b[${off}m`;
}
