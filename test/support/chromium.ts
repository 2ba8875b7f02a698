/** Debian's Chromium through playwright-core, as every browser test launches it (a fresh profile each time). */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests can run here (CI installs it; they are skipped elsewhere). */
export const HAS_CHROMIUM = existsSync(CHROMIUM) || process.env.CI !== undefined;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
