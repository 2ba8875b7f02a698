/**
 * A member signed in to the console in Chromium as a person does it: the
 * sign-in form's **Member name** and **Password**, **Sign in**, then the
 * console's navigation. `watch` sees the page before it loads (to listen
 * for what the strict CSP refuses, say); `fragment` opens a page after;
 * `password`: another than the console gateway's.
 */
import type { Browser, Page } from 'playwright-core';
import { PASSWORD } from './console.ts';

export async function signedInPage(
  browser: Browser,
  gatewayUrl: string,
  name: string,
  options: { fragment?: string; watch?: (page: Page) => void; password?: string } = {},
): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  options.watch?.(page);
  await page.goto(`${gatewayUrl}/console`);
  await page.getByLabel('Member name').fill(name);
  await page.getByLabel('Password').fill(options.password ?? PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
  if (options.fragment) await page.goto(`${gatewayUrl}/console#${options.fragment}`);
  return page;
}
