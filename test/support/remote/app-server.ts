/**
 * An MCP Apps example server from npm (`@modelcontextprotocol/server-basic-vanillajs`
 * or `-preact`, ext-apps 2.0.x on SDK v2) as a real upstream: its built `dist/`
 * copied to a folder of the test's own and started over Streamable HTTP on
 * loopback in a child process, so a test can change the app's HTML upstream
 * (the server reads `mcp-app.html` again at every `resources/read`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../fixtures.ts';
import { freePort } from '../free-port.ts';

export type AppExample = 'server-basic-vanillajs' | 'server-basic-preact';

export interface AppServer {
  url: string;
  /** The app's HTML as the server reads it. */
  html(): Promise<string>;
  /** Changes the app's HTML upstream (the next read serves it). */
  setHtml(html: string): Promise<void>;
  close(): Promise<void>;
}

export async function startAppServer(example: AppExample): Promise<AppServer> {
  const folder = await mkdtemp(join(tmpdir(), `portcullis-${example}-`));
  await cp(join(ROOT, 'node_modules', '@modelcontextprotocol', example, 'dist'), folder, {
    recursive: true,
  });
  await writeFile(join(folder, 'package.json'), '{"type":"module"}\n');
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(folder, 'index.js')], {
    env: { ...process.env, PORT: String(port), NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let said = '';
    const hear = (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('listening on')) resolve();
    };
    child.stdout!.on('data', hear);
    child.stderr!.on('data', hear);
    child.once('exit', (code) => reject(new Error(`${example} exited (${code}): ${said}`)));
  });
  const page = join(folder, 'mcp-app.html');
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    html: () => readFile(page, 'utf8'),
    setHtml: (html) => writeFile(page, html),
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
      await rm(folder, { recursive: true, force: true });
    },
  };
}
