/**
 * An agent's SDK v2 client as a host that renders MCP Apps connects it: it
 * declares the extension (`io.modelcontextprotocol/ui`, the app MIME type) in
 * its capabilities, or with `apps: false` declares nothing, as a host that
 * renders no apps does; on either wire (`modern` pins 2026-07-28).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
export const APP_MIME = 'text/html;profile=mcp-app';

export async function appHost(
  url: string,
  key: string,
  options: { era?: 'legacy' | 'modern'; apps?: boolean } = {},
): Promise<Client> {
  const { era = 'legacy', apps = true } = options;
  const client = new Client(
    { name: `host-${era}`, version: '1.0.0' },
    {
      capabilities: apps ? { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME] } } } : {},
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}
