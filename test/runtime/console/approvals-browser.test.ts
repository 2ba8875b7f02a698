/**
 * The Approvals page in Debian's Chromium against a real gateway and a real
 * remote MCP server (the SDK's, connected by URL, so Unverified): an agent
 * (the SDK 1.x client, no tasks) calls an `ask` tool with a hostile
 * argument and is told `approval_pending`; the navigation counts the held
 * call; the owner sees the call with its arguments as inert text (no markup
 * made of it, no script run, the escapes visible), approves it in the
 * browser: the call runs on the remote server then, once, and the agent's
 * next call with the same arguments gets its result. Axe-core and
 * screenshots at 1280 and 375 px.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../runtime/core/operator/agents.ts';
import { grant } from '../../../runtime/core/operator/grants.ts';
import { HAS_CHROMIUM, launchChromium } from '../../support/chromium.ts';
import {
  CONNECTION,
  type ConsoleGateway,
  PEOPLE,
  startConsoleGateway,
} from '../../support/console.ts';
import { lookAt } from '../../support/console-look.ts';
import { signedInPage } from '../../support/console-sign-in.ts';
import { callTool, mcpClient } from '../../support/gateway.ts';
import { toolReasonOf } from '../../support/reason.ts';

const HOSTILE = '<img src=x onerror="document.title=1"> vol \u202eevil\x1b[31m';
const TOOL = `${CONNECTION}__delete_item`;

let running: ConsoleGateway;
let browser: Browser;
let key: string;

beforeAll(async () => {
  [running, browser] = await Promise.all([
    startConsoleGateway({ environment: { PORTCULLIS_APPROVAL_WAIT_MS: '0' } }),
    launchChromium(),
  ]);
  const ctx = running.gateway.running.gateway.operator('cli');
  const workspace = 'default';
  key = (await createAgent(ctx, { workspace, name: 'asker' })).key;
  await grant(ctx, { workspace, agent: 'asker', connection: CONNECTION, scope: 'all' });
  await changeActions(ctx, 'ask', { workspace, connection: CONNECTION, actions: [TOOL] });
});
afterAll(async () => {
  await browser?.close();
  await running?.close();
});

describe.skipIf(!HAS_CHROMIUM)('the Approvals page in Chromium', { timeout: 240_000 }, () => {
  it('shows a held call inert, counts it, and approves it: the call then runs once', async () => {
    const client = await mcpClient(running.url, key);
    try {
      const args = { id: HOSTILE };
      const first = await callTool(client, TOOL, args);
      expect(toolReasonOf(first)).toBe('approval_pending');
      const id = first.structuredContent?.error?.detail?.approval as string;
      const runs = async () =>
        (await running.gateway.running.gateway.store.audit.query({ limit: 200 })).filter(
          (e) => e.subject === `approval:${id}` && e.action === TOOL && e.upstreamHost !== null,
        ).length;
      const page = await signedInPage(browser, running.url, PEOPLE.owner, {
        fragment: '/approvals',
      });
      const held = page.locator('section[data-approval]');
      await held.waitFor();
      await page.locator('nav.pages .count').filter({ hasText: '1' }).waitFor();
      const shownArguments = await held.locator('pre.arguments').textContent();
      expect(shownArguments).toContain('<img src=x onerror=');
      expect(shownArguments).not.toContain('\u202e');
      expect(await held.locator('img').count()).toBe(0);
      expect(await page.title()).not.toBe('1');
      await expect(held.getByText('Unverified server')).toBeDefined();
      await lookAt(page, 'console-approvals');
      await held.getByRole('button', { name: /^Approve/ }).click();
      await page.getByRole('status').filter({ hasText: 'Approved' }).waitFor();
      await page.getByText('No call is waiting for approval.').waitFor();
      // It runs when approved, before the agent calls again (the test's timeout bounds the wait).
      while ((await runs()) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      const ran = await callTool(client, TOOL, args);
      expect(ran.isError).toBeFalsy();
      expect(ran.content[0]?.text).toContain('deleted');
      // Once: the same call again is held anew.
      expect(toolReasonOf(await callTool(client, TOOL, args))).toBe('approval_pending');
      expect(await runs()).toBe(1);
      await page.close();
    } finally {
      await client.close();
    }
  });

  it('lets a viewer see held calls but not decide them', async () => {
    const page = await signedInPage(browser, running.url, PEOPLE.viewer, {
      fragment: '/approvals',
    });
    await page.locator('section[data-approval]').first().waitFor();
    expect(await page.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
    await page.close();
  });
});
