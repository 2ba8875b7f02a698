/**
 * A console page looked at as a person would: full-page screenshots at a
 * desktop and a phone width, kept in artifacts/ (CI keeps them), and
 * axe-core finding no serious or critical violation at either width.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { ROOT } from './fixtures.ts';

export const ARTIFACTS = join(ROOT, 'artifacts');

export async function lookAt(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    // Two frames: what redraws on a resize (the Activity page's charts) has drawn.
    await page.evaluate(
      'new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))',
    );
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    const { violations } = await new AxeBuilder({ page }).analyze();
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  }
}
