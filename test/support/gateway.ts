/**
 * A real gateway for integration tests: the HTTP server on a free loopback
 * port, its own data folder (SQLite) or a PostgreSQL URL, provider calls sent to
 * real upstreams (Prism) through the development override, plus small clients
 * for the admin API and for MCP (the SDK's own client).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Log } from '../../runtime/compose/log.ts';
import { type Config, configFromEnvironment } from '../../runtime/config/config.ts';
import type { ProviderFiles } from '../../runtime/core/catalog/catalog-set.ts';
import { type RunningServer, startServer } from '../../runtime/server.ts';
import { ROOT } from './fixtures.ts';

export const GENERATED = new URL(`file://${join(ROOT, 'generated')}/`);

export interface TestGatewayOptions {
  dataDir?: string;
  databaseUrl?: string;
  upstreams?: Record<string, string>;
  catalogs?: URL | readonly ProviderFiles[];
  masterKey?: string;
  /** The operator's log; stderr by default. */
  log?: Log;
  /** More configuration variables (e.g. `PORTCULLIS_UPSTREAM_DEADLINE_MS`). */
  environment?: Record<string, string>;
  /** The built console's folder (`test/support/console-build.ts`), served at `/console`. */
  consoleAssets?: URL;
}

export interface TestGateway {
  running: RunningServer;
  url: string;
  dataDir: string;
  /** Set on the data folder's first start only. */
  adminToken: string | undefined;
  close(): Promise<void>;
}

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'portcullis-gw-'));
  const config: Config = configFromEnvironment({
    // A test that closes with a request still open waits no longer than this for it.
    PORTCULLIS_SHUTDOWN_DEADLINE_MS: '5000',
    ...options.environment,
    PORT: '0',
    PORTCULLIS_DATA_DIR: dataDir,
    DATABASE_URL: options.databaseUrl,
    PORTCULLIS_MASTER_KEY: options.masterKey,
    PORTCULLIS_DEV_UPSTREAMS: Object.entries(options.upstreams ?? {})
      .map(([provider, origin]) => `${provider}=${origin}`)
      .join(','),
  });
  const running = await startServer(
    config,
    options.catalogs ?? GENERATED,
    options.log,
    options.consoleAssets ? { consoleAssets: options.consoleAssets } : {},
  );
  return {
    running,
    url: running.url,
    dataDir,
    adminToken: running.gateway.startup.adminToken,
    close: () => running.close(),
  };
}

export interface AdminReply<T = unknown> {
  status: number;
  body: T;
  text: string;
}

/** The admin API with a token. */
export function adminClient(url: string, token: string) {
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON replies field by field and assert on them
  return async function admin<T = any>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<AdminReply<T>> {
    const response = await fetch(`${url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? (JSON.parse(text) as T) : (undefined as T),
      text,
    };
  };
}

/** An MCP client session for an agent key, through the SDK's Streamable HTTP client. */
export async function mcpClient(url: string, key: string, path = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'portcullis-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** A tool result as the tests read it. */
export interface ToolReply {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: {
    error?: {
      code: string;
      message: string;
      field?: string;
      status?: number;
      detail?: Record<string, unknown>;
    };
    [key: string]: unknown;
  };
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolReply> {
  return (await client.callTool({ name, arguments: args })) as ToolReply;
}
