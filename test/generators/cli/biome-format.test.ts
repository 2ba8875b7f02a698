import { describe, expect, it } from 'vitest';
import { biomeFormatter } from '../../../generators/cli/biome-format.ts';
import { ROOT } from '../../support/fixtures.ts';

describe('biomeFormatter', () => {
  const format = biomeFormatter(ROOT);
  const names = Array.from({ length: 40 }, (_, i) => `'provider_action_${i}'`);
  const text = `export type ActionName = ${names.join(' | ')};\n`;

  it('breaks a long union into one member per line, each short', async () => {
    const formatted = await format('fx/tools.ts', text);
    const lines = formatted.split('\n');
    expect(lines).toContain("  | 'provider_action_17'");
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
  });

  it('is deterministic and idempotent', async () => {
    const once = await format('fx/tools.ts', text);
    expect(await format('fx/tools.ts', text)).toBe(once);
    expect(await format('fx/tools.ts', once)).toBe(once);
  });

  it('fails on text that is not TypeScript, naming the file', async () => {
    await expect(format('fx/tools.ts', 'export type = ;')).rejects.toThrow(
      /generated\/fx\/tools\.ts/,
    );
  });
});
