/**
 * The MCP conformance suite's authorization-server scenarios
 * (`conformance authorization`: the metadata document, and the
 * authorization code grant) against Portcullis's authorization server.
 *
 * The code-grant scenario prints an authorize URL and waits for a browser to
 * bring the code back to its callback server. A person is not needed: the
 * caller's `signIn` does what the person would on the consent page (the test
 * harness signs in a test-only member), and the redirect it gets back is
 * followed to the suite's callback. Nothing in the product is bypassed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITE_BIN = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const NODE20_PRELOAD =
  process.env.PORTCULLIS_CONFORMANCE_PRELOAD ??
  join(REPO_ROOT, '../shared/tools/conformance-node20/register.mjs');

export interface AuthorizationConformanceOptions {
  /** Must equal the metadata's `issuer` exactly. */
  issuer: string;
  /** A client registered with `http://127.0.0.1:<port>/callback`. */
  clientId: string;
  port: number;
  /** Completes sign-in and consent for the URL; answers the redirect back to the client. */
  signIn(authorizeUrl: string): Promise<URL>;
  timeoutMs?: number;
}

export interface AuthorizationCheck {
  id: string;
  status: string;
  errorMessage?: string;
}

export async function runAuthorizationConformance(
  options: AuthorizationConformanceOptions,
): Promise<AuthorizationCheck[]> {
  const outputDir = mkdtempSync(join(tmpdir(), 'portcullis-as-conformance-'));
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const major = Number(process.versions.node.split('.')[0]);
  const preload =
    major >= 22 || !existsSync(NODE20_PRELOAD)
      ? []
      : ['--import', pathToFileURL(NODE20_PRELOAD).href];
  const child = spawn(
    process.execPath,
    [
      ...preload,
      SUITE_BIN,
      'authorization',
      '--url',
      options.issuer,
      '--client-id',
      options.clientId,
      '--port',
      String(options.port),
      '-o',
      outputDir,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let signing: Promise<void> | undefined;
  const failures: unknown[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    const url = /^(https?:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(output)?.[1];
    if (url !== undefined && signing === undefined) {
      signing = options
        .signIn(url)
        .then(async (back) => {
          // Hand the code to the suite's callback server, as the browser would.
          await (await fetch(back)).text();
        })
        .catch((error: unknown) => {
          failures.push(error);
        });
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill(), options.timeoutMs ?? 60_000);
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', () => resolve());
    });
    await signing;
    if (failures.length > 0) throw failures[0];
    const checks = readChecks(outputDir);
    if (checks.length === 0) throw new Error(`the suite wrote no checks:\n${output.slice(-4000)}`);
    return checks;
  } finally {
    clearTimeout(timer);
    rmSync(outputDir, { recursive: true, force: true });
  }
}

function readChecks(folder: string): AuthorizationCheck[] {
  const checks: AuthorizationCheck[] = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) checks.push(...readChecks(path));
    else if (name === 'checks.json') {
      checks.push(...(JSON.parse(readFileSync(path, 'utf8')) as AuthorizationCheck[]));
    }
  }
  return checks;
}
