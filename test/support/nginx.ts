/**
 * Debian's nginx in front of gateway replicas, round-robin, configured by the
 * file operators deploy (`deploy/nginx/portcullis.conf`, rendered here as the
 * official nginx image renders its templates) inside a small main
 * configuration of the test's own: in the foreground as the test's child,
 * with its pid, error log and temporary files in a folder of its own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './fixtures.ts';

export const NGINX = process.env.PORTCULLIS_TEST_NGINX ?? '/usr/sbin/nginx';
/** The configuration operators deploy; the tests render this very file. */
export const NGINX_CONF = join(ROOT, 'deploy', 'nginx', 'portcullis.conf');

export interface Nginx {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** nginx's master process (its worker is its child). */
  pid: number;
  /** The error log so far (for a failing test's message). */
  errors(): string;
  /** How many requests each replica (`host:port`) was sent, from nginx's own access log. */
  served(): Map<string, number>;
  stop(): Promise<void>;
}

/**
 * `deploy/nginx/portcullis.conf` with its `${NAME}` values filled in; like
 * envsubst with a list of names, any other `$variable` (nginx's own) is left.
 */
export function renderNginxConf(values: Record<string, string>): string {
  const template = readFileSync(NGINX_CONF, 'utf8');
  return template.replace(/\$\{([A-Z0-9_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** Starts nginx on `port`, round-robin over `replicas` (`host:port` each). */
export async function startNginx(port: number, replicas: readonly string[]): Promise<Nginx> {
  const folder = mkdtempSync(join(tmpdir(), 'portcullis-nginx-'));
  // nginx's workers run as another user when the test runs as root.
  chmodSync(folder, 0o755);
  writeFileSync(
    join(folder, 'portcullis.conf'),
    renderNginxConf({
      PORTCULLIS_REPLICAS: replicas.map((replica) => `server ${replica};`).join(' '),
      PORTCULLIS_NGINX_PORT: `127.0.0.1:${port}`,
    }),
  );
  const errorLog = join(folder, 'error.log');
  const accessLog = join(folder, 'access.log');
  writeFileSync(
    join(folder, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${join(folder, 'nginx.pid')};`,
      `error_log ${errorLog} warn;`,
      'events { worker_connections 1024; }',
      'http {',
      // The test's own log: which replica each request went to.
      "  log_format upstreams '$upstream_addr $status';",
      `  access_log ${accessLog} upstreams;`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (kind) => `  ${kind}_temp_path ${join(folder, kind)};`,
      ),
      `  include ${join(folder, 'portcullis.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(
    NGINX,
    ['-p', `${folder}/`, '-c', join(folder, 'nginx.conf'), '-e', errorLog],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const errors = () => {
    try {
      return stderr + readFileSync(errorLog, 'utf8');
    } catch {
      return stderr;
    }
  };
  const served = () => {
    const counts = new Map<string, number>();
    let lines: string[] = [];
    try {
      lines = readFileSync(accessLog, 'utf8').split('\n');
    } catch {}
    // A request nginx tried on two replicas names both: `a:1, b:2 502`.
    for (const line of lines) {
      for (const match of line.matchAll(/(\d+\.\d+\.\d+\.\d+:\d+)/g))
        counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
    }
    return counts;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // QUIT: a graceful stop; TERM after a moment if streams hold it.
      child.kill('SIGQUIT');
      const term = setTimeout(() => child.kill('SIGTERM'), 2_000);
      await exited;
      clearTimeout(term);
    }
    rmSync(folder, { recursive: true, force: true });
  };
  // Listening once it answers (a 502 from no replica counts: nginx itself is up).
  for (let tries = 0; tries < 200; tries++) {
    if (child.exitCode !== null) break;
    const reply = await fetch(`${url}/healthz`).catch(() => undefined);
    if (reply) {
      await reply.body?.cancel();
      return { url, pid: child.pid!, errors, served, stop };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const message = errors();
  await stop();
  throw new Error(`nginx did not start: ${message}`);
}
