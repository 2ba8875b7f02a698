/**
 * A curated remote MCP server definition → its connection manifest. The
 * definition is parsed with its zod schema, then checked for what zod cannot
 * say: the folder and the id agree, every endpoint pattern is a canonical
 * public https URL, no two patterns (of this definition or of two) match the
 * same URL, one hint per way of signing in, header names a user may set.
 * Every error names the field to change.
 */
import { type RemoteDefinition, RemoteDefinitionSchema } from '../../specs/remote-definition.ts';
import type { RemoteMcpManifest } from '../catalog/format.ts';
import {
  endpointPatternsOverlap,
  hashJson,
  remoteHeaderNameRefusal,
  whyEndpointPatternRefused,
} from '../catalog/rules.ts';
import { CompileError } from '../errors.ts';
import { GENERATOR } from './compile-provider.ts';
import { parseOrThrow } from './parse-definition.ts';

export const remoteDefinitionFile = (id: string): string => `specs/${id}/remote.ts`;

/** Validates one definition (`key` is its folder under `specs/`). */
export function parseRemoteDefinition(key: string, value: unknown): RemoteDefinition {
  const file = remoteDefinitionFile(key);
  const definition = parseOrThrow(RemoteDefinitionSchema, value, file);
  const fail = (pointer: string, message: string, fix: string): never => {
    throw new CompileError('invalid_definition', message, { place: { file, pointer }, fix });
  };
  if (definition.id !== key) {
    fail('/id', `id "${definition.id}" is not its folder's name`, `set id to "${key}"`);
  }
  for (const [i, endpoint] of definition.endpoints.entries()) {
    const why = whyEndpointPatternRefused(endpoint.url);
    if (why !== undefined) {
      fail(
        `/endpoints/${i}/url`,
        `endpoint ${JSON.stringify(endpoint.url)} ${why}`,
        'write the https URL of the endpoint as the URL standard writes it: lower-case host, no default port, no query, fragment, credentials or percent-escapes',
      );
    }
    for (const [j, earlier] of definition.endpoints.slice(0, i).entries()) {
      if (endpointPatternsOverlap(earlier, endpoint)) {
        fail(
          `/endpoints/${i}/url`,
          `endpoint ${endpoint.url} (${endpoint.match}) matches URLs that endpoint ${j} already matches`,
          'remove one of them, or make them name distinct paths',
        );
      }
    }
  }
  const kinds = definition.auth.map((a) => a.kind);
  for (const [i, hint] of definition.auth.entries()) {
    if (kinds.indexOf(hint.kind) !== i) {
      fail(`/auth/${i}/kind`, `auth lists "${hint.kind}" twice`, 'keep one hint per kind');
    }
    if (hint.kind === 'none' && definition.auth.length > 1) {
      fail(
        `/auth/${i}/kind`,
        '"none" says the server needs no sign-in, but other ways are listed',
        'remove "none", or the other hints',
      );
    }
    if (hint.kind !== 'headers') continue;
    const seen = new Set<string>();
    for (const [j, header] of hint.headers.entries()) {
      const pointer = `/auth/${i}/headers/${j}/name`;
      const why = whyCuratedHeaderRefused(header.name);
      if (why !== undefined) {
        fail(pointer, `header ${JSON.stringify(header.name)} ${why}`, headerFix(header.name));
      }
      if (seen.has(header.name.toLowerCase())) {
        fail(pointer, `header ${header.name} is listed twice`, 'list each header once');
      }
      seen.add(header.name.toLowerCase());
    }
  }
  const classes = definition.defaults.enabledClasses;
  for (const [i, c] of classes.entries()) {
    if (classes.indexOf(c) !== i) {
      fail(`/defaults/enabledClasses/${i}`, `class "${c}" is listed twice`, 'list each class once');
    }
  }
  return definition;
}

/** No two definitions match the same URL, and none shares an id with a native provider. */
export function ensureRemotesDistinct(
  definitions: readonly RemoteDefinition[],
  nativeIds: readonly string[],
): void {
  for (const [k, definition] of definitions.entries()) {
    if (nativeIds.includes(definition.id)) {
      throw new CompileError(
        'invalid_definition',
        `id "${definition.id}" is also a native provider's; both would write generated/${definition.id}/manifest.json`,
        {
          place: { file: remoteDefinitionFile(definition.id), pointer: '/id' },
          fix: 'give the remote definition another id (and folder)',
        },
      );
    }
    for (const other of definitions.slice(0, k)) {
      for (const [i, endpoint] of definition.endpoints.entries()) {
        const clash = other.endpoints.find((e) => endpointPatternsOverlap(e, endpoint));
        if (!clash) continue;
        throw new CompileError(
          'remote_endpoint_overlap',
          `endpoint ${endpoint.url} (${endpoint.match}) matches URLs that ${other.id}'s ${clash.url} (${clash.match}) matches: a pasted URL must name one definition`,
          {
            place: { file: remoteDefinitionFile(definition.id), pointer: `/endpoints/${i}/url` },
            fix: `narrow one of the two patterns (match "exact", or a longer path), or remove it from ${definition.id} or ${other.id}`,
          },
        );
      }
    }
  }
}

/** The manifest of a validated definition. */
export function createRemoteManifest(definition: RemoteDefinition): RemoteMcpManifest {
  const definitionHash = hashJson(definition);
  const connectionName = definition.defaults.connectionName ?? definition.id;
  return {
    $comment: remoteBannerLines(definition.id, definitionHash).join('\n'),
    format: 1,
    connection: {
      id: definition.id,
      name: definition.name,
      description: definition.description,
      documentationUrl: definition.documentationUrl,
      transport: 'remote_mcp',
      endpoints: definition.endpoints,
      auth: definition.auth,
      defaults: { connectionName, enabledClasses: definition.defaults.enabledClasses },
      support: definition.support,
      definitionHash,
    },
    mcpServers: {
      // `${VAR}` is expanded by the MCP client from its environment, not by us.
      [`portcullis-${connectionName}`]: {
        type: 'http',
        url: `\${PORTCULLIS_URL:-http://127.0.0.1:8080}/mcp/c/${connectionName}`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder for the MCP client
        headers: { Authorization: 'Bearer ${PORTCULLIS_AGENT_KEY}' },
      },
    },
  };
}

export function remoteBannerLines(id: string, definitionHash: string): string[] {
  return [
    `Generated by generators/cli.ts (${GENERATOR.name} ${GENERATOR.version}). Do not edit.`,
    `Source definition: ${remoteDefinitionFile(id)} sha256 ${definitionHash}`,
    'Regenerate: npm run generate',
  ];
}

/** The remote header rule the runtime applies too (`remoteHeaderNameRefusal`, catalog/rules.ts). */
function whyCuratedHeaderRefused(name: string): string | undefined {
  switch (remoteHeaderNameRefusal(name)) {
    case 'malformed':
      return 'is not a valid header name';
    case 'managed':
      return 'is set by the gateway or the transport, not by the operator';
    case 'family':
      return 'is in a family of headers the gateway does not forward';
    case undefined:
      return undefined;
  }
}

function headerFix(name: string): string {
  return name.toLowerCase() === 'authorization'
    ? 'describe a key sent as Authorization: Bearer with an auth hint of kind "bearer"'
    : 'name a header the server reads that the gateway does not manage';
}
