/**
 * Reading a pasted `mcpServers` snippet (the forms MCP clients use:
 * `{"mcpServers": {"name": {...}}}`, the inner map alone, or one entry) into
 * what `connect-url` takes. An entry has a `url`, optionally a `type`
 * (`http`, `streamable-http`, `sse`) and `headers`. Header values are
 * secrets: a placeholder (`${VAR}`, `<YOUR_KEY>`, `{{key}}`, `YOUR_API_KEY`)
 * names what to ask for, a `${VAR}` one the environment variable to read;
 * `Authorization: Bearer …` becomes the connection's key. An entry with a
 * `command` is a local stdio server, out of scope, and refused by name.
 */
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import type { RemoteTransport } from '../../model/remote.ts';
import { assertHeaderValueAllowed } from '../../outbound/header-rules.ts';
import { assertBearerKeyAllowed, assertHeaderNameAllowed } from './remote-headers.ts';

export interface PastedSecret {
  /** The header it goes in (`Authorization` for the bearer key). */
  header: string;
  /** The value as pasted, when it is not a placeholder (never shown). */
  value?: string;
  /** The environment variable a `${VAR}` placeholder names. */
  env?: string;
  /** The placeholder as pasted, to ask the operator with. */
  placeholder?: string;
}

export interface PastedServer {
  name: string;
  url: string;
  transport: RemoteTransport;
  /** `Authorization: Bearer …`, when the snippet has one. */
  bearer: PastedSecret | undefined;
  headers: PastedSecret[];
}

const PLACEHOLDER =
  /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$|^<[^<>]+>$|^\{\{[^{}]+\}\}$|^[A-Z][A-Z0-9_]*(KEY|TOKEN|SECRET|PASSWORD)[A-Z0-9_]*$|^(your|YOUR)[-_ ]/;

export function parseMcpServers(text: string): PastedServer[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refuse(
      'config',
      'the paste is not JSON; paste the mcpServers object as the vendor gives it',
    );
  }
  if (!isPlainObject(value)) throw refuse('config', 'expected a JSON object with mcpServers');
  const servers = isPlainObject(value.mcpServers)
    ? value.mcpServers
    : typeof value.url === 'string' || typeof value.command === 'string'
      ? { remote: value }
      : value;
  const entries = Object.entries(servers);
  if (entries.length === 0) throw refuse('mcpServers', 'no server in the paste');
  return entries.map(([name, entry]) => serverOf(name, entry));
}

function serverOf(name: string, entry: unknown): PastedServer {
  const field = `mcpServers.${name}`;
  if (!isPlainObject(entry)) throw refuse(field, 'expected an object with a url');
  if (entry.command !== undefined)
    throw refuse(
      `${field}.command`,
      `${name} is a local server started with a command (stdio); Portcullis connects remote servers by URL only`,
    );
  if (typeof entry.url !== 'string' || entry.url === '')
    throw refuse(`${field}.url`, `${name} has no url`);
  const type = entry.type ?? entry.transport ?? 'http';
  if (type !== 'http' && type !== 'streamable-http' && type !== 'sse')
    throw refuse(
      `${field}.type`,
      `expected http, streamable-http or sse, got ${JSON.stringify(String(type)).slice(0, 40)}`,
    );
  const headers: PastedSecret[] = [];
  let bearer: PastedSecret | undefined;
  if (entry.headers !== undefined && !isPlainObject(entry.headers))
    throw refuse(`${field}.headers`, 'expected an object of header names and values');
  for (const [header, raw] of Object.entries(entry.headers ?? {})) {
    if (typeof raw !== 'string')
      throw refuse(`${field}.headers.${header}`, 'expected a string value');
    // A value is taken as pasted: a line break or control character in it is
    // refused, never trimmed away (only surrounding spaces are).
    if (header.toLowerCase() === 'authorization') {
      assertBearerKeyAllowed(raw, `${field}.headers.${header}`);
      const match = /^Bearer\s+(.+)$/i.exec(raw.trim());
      if (!match)
        throw refuse(
          `${field}.headers.${header}`,
          'only an Authorization header of the form "Bearer <key>" is taken (as the connection key)',
        );
      bearer = secretOf('Authorization', match[1]!);
      continue;
    }
    assertHeaderNameAllowed(header, `${field}.headers.${header}`);
    assertHeaderValueAllowed(header, raw, `${field}.headers.${header}`);
    headers.push(secretOf(header, raw));
  }
  return {
    name,
    url: entry.url,
    transport: type === 'sse' ? 'sse' : 'streamable-http',
    bearer,
    headers,
  };
}

function secretOf(header: string, raw: string): PastedSecret {
  const value = raw.trim();
  if (!PLACEHOLDER.test(value)) return { header, value };
  const env = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value)?.[1];
  return { header, placeholder: value, ...(env ? { env } : {}) };
}

function refuse(field: string, why: string): GatewayError {
  return new GatewayError('remote_config_invalid', `${field}: ${why}`, { field });
}

/** What an operator can hand to an agent to get a paste-ready snippet (`import --help-prompt`). */
export const HELP_PROMPT = `I want to connect the remote MCP server of <VENDOR> to a gateway that takes an mcpServers JSON snippet.

Please consult <VENDOR>'s current official documentation (not memory) and reply with:

1. Exactly one JSON code block, paste-ready, of the form
   {"mcpServers": {"<short-name>": {"type": "http", "url": "https://…", "headers": {"<Header-Name>": "\${ENV_VAR_NAME}"}}}}
   - "type" is "http" (Streamable HTTP) or "sse" (the older HTTP+SSE transport), whichever the vendor documents.
   - Use a placeholder such as \${VENDOR_API_KEY} for every credential; never a real value.
   - Put a key the vendor sends as "Authorization: Bearer <key>" in an "Authorization" header with the value "Bearer \${VENDOR_API_KEY}".
   - Leave "headers" out if the server needs none, or signs people in with OAuth in the browser.
2. After the block, short notes: for each placeholder, where to obtain the credential, which permissions or scopes it needs, and whether the server instead offers a browser sign-in (OAuth).

Only remote servers reached by URL; no "command" entries.`;

/**
 * The one entry of a paste to connect: the one named, or the only one;
 * otherwise `invalid_input` on `field`, listing the names and saying how to choose.
 */
export function chooseServer(
  servers: readonly PastedServer[],
  wanted: string | undefined,
  choice: { field: string; how: string },
): PastedServer {
  const chosen =
    wanted !== undefined
      ? servers.find((server) => server.name === wanted)
      : servers.length === 1
        ? servers[0]
        : undefined;
  if (chosen) return chosen;
  throw new GatewayError(
    'invalid_input',
    `the paste has ${servers.map((s) => s.name).join(', ')}; ${choice.how}`,
    { field: choice.field },
  );
}

/** A snippet's server name as a connection name, when it can be one. */
export function connectionNameOf(name: string): string | undefined {
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, 32)
    .replace(/-+$/, '');
  return /^[a-z][a-z0-9-]{0,31}$/.test(cleaned) && cleaned !== 'remote' ? cleaned : undefined;
}
