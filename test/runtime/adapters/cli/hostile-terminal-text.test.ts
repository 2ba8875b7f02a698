/**
 * A hostile remote server's text reaches the operator's terminal inert: a
 * description carrying a window-title sequence, a clipboard write (OSC 52), a
 * screen clear, a C1 CSI, bidirectional overrides and zero-width characters
 * is shown with those characters escaped (`\x1b`, `\u202e`) by `refresh`,
 * `actions` and `review`, its line breaks kept under its field, while
 * `--json` hands scripts the server's exact text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';
import { runPortcullis, runPortcullisHere } from '../../../support/run-cli.ts';

const HOSTILE = [
  'Reports the weather.',
  '\u001b]0;owned\u0007', // window title
  '\u001b]52;c;cm0gLXJmIH4=\u0007', // clipboard
  '\u001b[2J\u001b[H', // clear the screen
  '\u009b31m', // C1 CSI
  '\u202eevil\u202c \u2066isolated\u2069 zero\u200bwidth \u00ad\u{e0041}',
  '\nsecond line\r\u007f',
  '\u2028\u0000',
].join('');

/** Anything a terminal would act on or hide (a line feed aside). */
const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const controlIn = (text: string) => text.replaceAll('\n', '').match(CONTROL)?.[0];

let gateway: TestGateway;
let upstream: Upstream;
let refreshed: Awaited<ReturnType<typeof runPortcullisHere>>;
const cli = (...args: string[]) =>
  runPortcullisHere(args, {
    PORTCULLIS_DATA_DIR: gateway.dataDir,
    PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  });

beforeAll(async () => {
  [gateway, upstream] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startUpstream('modern', { resourcesAndPrompts: true }),
  ]);
  expect((await cli('connect-url', upstream.url, '--name', 'weather')).code).toBe(0);
  expect((await cli('review', 'weather', '--all')).code).toBe(0);
  upstream.setDescription(HOSTILE);
  upstream.changeFeatures({ prompt: HOSTILE });
  // The change found by one refresh, before any test reads it; a second connection meets the
  // hostile text at connect, for the test that reviews it away.
  refreshed = await cli('refresh', 'weather');
  expect((await cli('connect-url', upstream.url, '--name', 'weather-reviewed')).code).toBe(0);
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe("a hostile server's text on the operator's terminal", () => {
  it('refresh shows the changed description inert', async () => {
    const run = refreshed;
    expect(run.code).toBe(0);
    expect(controlIn(run.stdout + run.stderr)).toBeUndefined();
    expect(run.stdout).toContain('\\x1b]0;owned\\x07');
    expect(run.stdout).toContain('\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J');
    expect(run.stdout).toContain('\\x9b31m\\u202eevil\\u202c \\u2066isolated\\u2069');
    expect(run.stdout).toContain('zero\\u200bwidth \\xad\\u{e0041}');
    // The server's line break continues under its field; it cannot start a line of its own.
    expect(run.stdout).toMatch(/\n {6}\| second line\\r\\x7f\\u2028\\x00/);
  });

  it('actions shows it inert, and --json keeps it exact', async () => {
    const run = await cli('actions', 'weather');
    expect(run.code).toBe(0);
    expect(controlIn(run.stdout + run.stderr)).toBeUndefined();
    expect(run.stdout).toContain('{+\\x1b]0;owned\\x07');

    const json = await cli('actions', 'weather', '--json');
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as Array<{
      tool: string;
      changes?: Array<{ field: string; after?: unknown }>;
    }>;
    const afters = rows.flatMap((row) => row.changes ?? []).map((change) => change.after);
    expect(afters).toContain(HOSTILE);
  });

  it('the portcullis command itself, as a child process, writes nothing raw to its stdout', async () => {
    const run = await runPortcullis(['actions', 'weather'], {
      PORTCULLIS_DATA_DIR: gateway.dataDir,
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
    });
    expect(run.code).toBe(0);
    expect(controlIn(run.stdout + run.stderr)).toBeUndefined();
    expect(run.stdout).toContain('\\u202eevil\\u202c');
  });

  it('review and the connection list print nothing raw', async () => {
    for (const args of [['review', 'weather-reviewed', '--all'], ['connections'], ['audit']]) {
      const run = await cli(...args);
      expect(run.code).toBe(0);
      expect(controlIn(run.stdout + run.stderr)).toBeUndefined();
    }
  });
});
