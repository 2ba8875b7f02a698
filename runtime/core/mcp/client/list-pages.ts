/**
 * Every page of one upstream list (`tools/list`, `prompts/list`,
 * `resources/list`, `resources/templates/list`), bounded: a server that
 * pages forever is cut off after `PAGES_MAX` pages.
 */
import { GatewayError } from '../../base/errors.ts';
import type { ExchangeOptions, UpstreamClient, UpstreamSession } from './upstream-client.ts';
import type { UpstreamTarget } from './upstream-target.ts';

export const PAGES_MAX = 50;

/** One page: its entries, and the whole result (for what else it says, such as `ttlMs`). */
export interface ListPage {
  entries: unknown[];
  result: Record<string, unknown>;
}

/** Yields each page in order; returns whether the list ended before the page limit. */
export async function* listPages(
  client: UpstreamClient,
  target: UpstreamTarget,
  session: UpstreamSession,
  method: string,
  member: string,
  options: ExchangeOptions = {},
): AsyncGenerator<ListPage, boolean> {
  let cursor: string | undefined;
  for (let page = 0; page < PAGES_MAX; page++) {
    const { result } = await client.request(
      target,
      session,
      method,
      cursor === undefined ? {} : { cursor },
      options,
    );
    const entries = result[member];
    if (!Array.isArray(entries))
      throw new GatewayError(
        'mcp_remote_malformed_response',
        `the remote MCP server's ${method} result has no ${member} array`,
      );
    yield { entries, result };
    cursor =
      typeof result.nextCursor === 'string' && result.nextCursor !== ''
        ? result.nextCursor
        : undefined;
    if (cursor === undefined) return true;
  }
  return false;
}
