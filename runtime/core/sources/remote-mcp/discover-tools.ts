/**
 * Every page of an upstream's `tools/list`, as pinnable contracts. Tools the
 * server describes badly are left out and named; the pages and tools a
 * server may send are bounded (a server that pages forever is cut off).
 */
import { listPages, PAGES_MAX } from '../../mcp/client/list-pages.ts';
import type {
  ExchangeOptions,
  UpstreamClient,
  UpstreamSession,
} from '../../mcp/client/upstream-client.ts';
import type { UpstreamTarget } from '../../mcp/client/upstream-target.ts';
import type { RemoteToolContract } from '../../model/remote.ts';
import { toolContractOf } from './remote-tool-contract.ts';
import type { RemoteValidators } from './remote-tool-source.ts';

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
  const pages = listPages(client, target, session, 'tools/list', 'tools', options);
  let next = await pages.next();
  for (; !next.done; next = await pages.next()) {
    const { entries, result } = next.value;
    if (typeof result.ttlMs === 'number' && result.ttlMs >= 0)
      ttlMs = ttlMs === undefined ? result.ttlMs : Math.min(ttlMs, result.ttlMs);
    for (const entry of entries) {
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
  }
  if (!next.value) problems.push(`more than ${PAGES_MAX} pages of tools; the rest are left out`);
  return { tools, problems, ttlMs };
}
