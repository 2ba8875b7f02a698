/**
 * A real Prism mock server on loopback for one pinned document, as the
 * upstream of native REST integration tests. The bytes come from the spec
 * mirror through `SpecStore` (checked against the pin's sha256); YAML is turned
 * into JSON first, because Prism's loader refuses the `!!float` tag the Unikraft
 * platform document uses. Prism answers with the documents' examples
 * (`--dynamic false`) and validates requests, including security schemes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { sha256Hex } from '../../generators/catalog/rules.ts';
import { ROOT } from './fixtures.ts';
import { freePort } from './free-port.ts';
import { mirrorStore } from './pinned.ts';

export interface PrismServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  stop(): Promise<void>;
}

const PRISM = join(ROOT, 'node_modules', '.bin', 'prism');

/**
 * Runs Prism as its child and ends it when our end of its stdin closes, so a
 * test process that dies without calling `stop` (killed, timed out) leaves no
 * Prism behind. argv: the Prism binary, then its arguments.
 */
const WATCHDOG = `
const { spawn } = require('node:child_process');
const [bin, ...args] = process.argv.slice(1);
const prism = spawn(bin, args, { stdio: ['ignore', 'inherit', 'inherit'] });
const stop = () => {
  prism.kill('SIGTERM');
  setTimeout(() => prism.kill('SIGKILL'), 3000).unref();
};
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
prism.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
`;
const READY = /Prism is listening on/;
const START_TIMEOUT_MS = 60_000;

/**
 * Starts Prism for `specs/<provider>/pins.json` document `document` and waits
 * until it listens: on `port`, or on a free one when none is given (or 0).
 */
export async function startPrism(
  provider: string,
  document: string,
  port = 0,
): Promise<PrismServer> {
  const file = await pinnedDocumentAsJson(provider, document);
  if (port !== 0) {
    try {
      return await startOn(port, file);
    } catch (error) {
      await file.remove();
      throw error;
    }
  }
  let lastError: unknown;
  // The free port is found before Prism binds it; another process may take it in between.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      return await startOn(await freePort(), file);
    } catch (error) {
      lastError = error;
    }
  }
  await file.remove();
  throw lastError;
}

async function startOn(
  port: number,
  file: { path: string; remove(): Promise<void> },
): Promise<PrismServer> {
  const args = [
    'mock',
    '-p',
    String(port),
    '-h',
    '127.0.0.1',
    '--dynamic',
    'false',
    '--errors',
    'false',
    file.path,
  ];
  const child = spawn(process.execPath, ['-e', WATCHDOG, PRISM, ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  try {
    await listening(child);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      await stopProcess(child);
      await file.remove();
    },
  };
}

async function pinnedDocumentAsJson(
  provider: string,
  document: string,
): Promise<{ path: string; remove(): Promise<void> }> {
  const pins = JSON.parse(
    await readFile(join(ROOT, 'specs', provider, 'pins.json'), 'utf8'),
  ) as Record<string, { repo: string; commit: string; path: string; sha256: string } | undefined>;
  const pin = pins[document];
  if (!pin) throw new Error(`specs/${provider}/pins.json has no document ${document}`);
  const bytes = await mirrorStore().read(provider, document, pin);
  const actual = sha256Hex(bytes);
  if (actual !== pin.sha256)
    throw new Error(`${provider}/${document}: expected sha256 ${pin.sha256}, got ${actual}`);
  const parsed: unknown = yaml.load(Buffer.from(bytes).toString('utf8'));
  const folder = await mkdtemp(join(tmpdir(), 'portcullis-prism-'));
  const path = join(folder, `${provider}-${document}.json`);
  await writeFile(path, JSON.stringify(parsed));
  return { path, remove: () => rm(folder, { recursive: true, force: true }) };
}

function listening(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => finish(new Error(`Prism did not start listening; it said:\n${output.slice(-2000)}`)),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (READY.test(output)) finish();
    };
    const onExit = (code: number | null): void =>
      finish(new Error(`Prism exited (${code}) before listening:\n${output.slice(-2000)}`));
    function finish(error?: Error): void {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      // Keep draining its output so a full pipe never blocks it.
      child.stdout?.resume();
      child.stderr?.resume();
      if (error) reject(error);
      else resolve();
    }
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Ends the watchdog and Prism: the whole process group (the watchdog leads it). */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signalGroup(child.pid, 'SIGTERM');
  const killed = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), 5_000);
  await exited;
  clearTimeout(killed);
  // Children that outlived the leader.
  signalGroup(child.pid, 'SIGKILL');
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
