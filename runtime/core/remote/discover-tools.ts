/**
 * Every page of an upstream's `tools/list`, as pinnable contracts. Tools the
 * server describes badly are left out and named; the pages and tools a
 * server may send are bounded (a server that pages forever is cut off).
 */
import { GatewayError } from '../errors.ts';
import type { RemoteToolContract } from './remote-model.ts';
import { toolContractOf } from './remote-tool-contract.ts';
import type { RemoteValidators } from './remote-tool-source.ts';
import type {
  ExchangeOptions,
  UpstreamClient,
  UpstreamSession,
  UpstreamTarget,
} from './upstream-client.ts';

export const PAGES_MAX = 50;
export const TOOLS_MAX = 2_000;

export interface DiscoveredTools {
  tools: RemoteToolContract[];
  /** Tools left out, each with why. */
  problems: string[];
  /** How long the list stays fresh, when the server says (2026-07-28 `ttlMs`). */
  ttlMs: number | undefined;
}

export async function discoverTools(
  client: UpstreamClient,
  target: UpstreamTarget,
  session: UpstreamSession,
  validators: RemoteValidators,
  options: ExchangeOptions = {},
): Promise<DiscoveredTools> {
  const tools: RemoteToolContract[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  let ttlMs: number | undefined;
  let cursor: string | undefined;
  for (let page = 0; page < PAGES_MAX; page++) {
    const { result } = await client.request(
      target,
      session,
      'tools/list',
      cursor === undefined ? {} : { cursor },
      options,
    );
    if (!Array.isArray(result.tools))
      throw new GatewayError(
        'mcp_remote_malformed_response',
        "the remote MCP server's tools/list result has no tools array",
      );
    if (typeof result.ttlMs === 'number' && result.ttlMs >= 0)
      ttlMs = ttlMs === undefined ? result.ttlMs : Math.min(ttlMs, result.ttlMs);
    for (const entry of result.tools) {
      const contract = toolContractOf(entry);
      if ('problem' in contract) {
        problems.push(contract.problem);
        continue;
      }
      if (seen.has(contract.name)) {
        problems.push(`tool ${contract.name} is listed twice; the first is kept`);
        continue;
      }
      const schemaProblem = validators.problemOf(contract.inputSchema);
      if (schemaProblem !== undefined) {
        problems.push(`tool ${contract.name}'s input schema does not compile: ${schemaProblem}`);
        continue;
      }
      if (tools.length >= TOOLS_MAX) {
        problems.push(`more than ${TOOLS_MAX} tools; the rest are left out`);
        return { tools, problems, ttlMs };
      }
      seen.add(contract.name);
      tools.push(contract);
    }
    cursor =
      typeof result.nextCursor === 'string' && result.nextCursor !== ''
        ? result.nextCursor
        : undefined;
    if (cursor === undefined) return { tools, problems, ttlMs };
  }
  problems.push(`more than ${PAGES_MAX} pages of tools; the rest are left out`);
  return { tools, problems, ttlMs };
}
