/**
 * The admin API's paste route: an `mcpServers` snippet and the values of its
 * placeholders (write-only, by header name; `Authorization` for the bearer
 * key), normalised into the same `connect-url` input the guided route takes.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { chooseServer, parseMcpServers } from '../sources/remote-mcp/mcp-servers-config.ts';
import type { OperatorContext } from './context.ts';
import { parseInput } from './context.ts';
import { connectUrl, type RemoteConnectResult } from './remote-connections.ts';

const ImportSchema = z.strictObject({
  workspace: z.string().min(1),
  /** The snippet, as pasted (JSON text) or as a JSON object. */
  config: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
  server: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  /** Values for the snippet's placeholders, by header name (write-only). */
  values: z.record(z.string(), z.string()).default({}),
});

export async function importConfig(
  ctx: OperatorContext,
  input: unknown,
): Promise<RemoteConnectResult> {
  const parsed = parseInput(ImportSchema, input);
  const servers = parseMcpServers(
    typeof parsed.config === 'string' ? parsed.config : JSON.stringify(parsed.config),
  );
  const chosen = chooseServer(servers, parsed.server, {
    field: 'server',
    how: 'name one in server',
  });
  const secretValue = (secret: { header: string; value?: string; placeholder?: string }) => {
    const given = parsed.values[secret.header] ?? secret.value;
    if (given === undefined)
      throw new GatewayError(
        'invalid_input',
        `values.${secret.header}: give the value for ${secret.placeholder ?? secret.header}`,
        {
          field: `values.${secret.header}`,
        },
      );
    return given;
  };
  const headers = Object.fromEntries(
    chosen.headers.map((secret) => [secret.header, secretValue(secret)]),
  );
  return connectUrl(
    ctx,
    {
      workspace: parsed.workspace,
      url: chosen.url,
      ...(parsed.name === undefined ? {} : { name: parsed.name }),
      ...(chosen.bearer ? { token: secretValue(chosen.bearer) } : {}),
      ...(chosen.headers.length > 0 ? { headers } : {}),
    },
    // The pasted key is the server's name as someone else wrote it: a name to derive from, never a given one.
    { pastedKey: chosen.name },
  );
}
