/**
 * What a pasted `mcpServers` snippet holds, read before it is imported (the
 * console's **Advanced → Paste a config**): each server's name, address and
 * host, and the header names whose values the operator must still give (a
 * placeholder was pasted). A value pasted in full is never answered back,
 * only that it was given. The request an operator can hand to an agent to
 * get such a snippet (`import --help-prompt`) is here too.
 */
import { z } from 'zod';
import { NO_SECRETS } from '../outbound/redaction.ts';
import { HELP_PROMPT, parseMcpServers } from '../sources/remote-mcp/mcp-servers-config.ts';
import { type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

const ReadConfigSchema = z.strictObject({
  workspace: z.string().min(1),
  config: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
});

export interface PastedHeader {
  /** The header name (`Authorization` for the bearer key). */
  header: string;
  /** The placeholder as pasted, to ask with; absent when a value was pasted (never shown). */
  placeholder?: string;
  /** Whether the paste holds a value for it already. */
  given: boolean;
}

export interface PastedServerView {
  name: string;
  /** The address without userinfo or fragment (a password pasted in it is never answered back). */
  url: string;
  /** The address's host, or the address as pasted when it is not one. */
  host: string;
  headers: PastedHeader[];
}

export async function readConfig(
  ctx: OperatorContext,
  input: unknown,
): Promise<{ servers: PastedServerView[] }> {
  const parsed = parseInput(ReadConfigSchema, input);
  await workspaceOrThrow(ctx, parsed.workspace);
  const servers = parseMcpServers(
    typeof parsed.config === 'string' ? parsed.config : JSON.stringify(parsed.config),
  );
  return {
    servers: servers.map((server) => ({
      name: server.name,
      ...addressOf(server.url),
      headers: [...(server.bearer ? [server.bearer] : []), ...server.headers].map((secret) => ({
        header: secret.header,
        ...(secret.placeholder === undefined ? {} : { placeholder: secret.placeholder }),
        given: secret.value !== undefined,
      })),
    })),
  };
}

/** The request to hand to an agent for a paste-ready snippet. */
export function configHelpPrompt(): { prompt: string } {
  return { prompt: HELP_PROMPT };
}

/** The address as shown back, and its host; an address that does not parse is shown as pasted. */
function addressOf(pasted: string): { url: string; host: string } {
  try {
    const url = new URL(pasted);
    return { url: NO_SECRETS.url(url), host: url.host };
  } catch {
    return { url: pasted, host: pasted };
  }
}
