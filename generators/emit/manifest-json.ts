/** The MCP connection manifest: how an operator connects the provider and how an agent's MCP client reaches it. */
import type { ProviderDefinition } from '../../specs/provider-definition.ts';
import type { Catalog, ConnectionManifest } from '../catalog/format.ts';
import { actionByRef } from '../compile/operation-ref.ts';

export function createManifest(
  definition: ProviderDefinition,
  catalog: Catalog,
): ConnectionManifest {
  const verify = actionByRef(catalog.actions, definition.verify);
  return {
    $comment: catalog.$comment,
    format: 1,
    connection: {
      id: definition.id,
      name: definition.name,
      description: definition.description,
      documentationUrl: definition.documentationUrl,
      transport: 'native_rest',
      auth: definition.auth,
      allowedHosts: catalog.hosts,
      settingsSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: definition.settings,
        additionalProperties: false,
      },
      verify: { action: verify?.name ?? null },
      counts: catalog.counts,
      catalogHash: catalog.hash,
    },
    mcpServers: {
      // `${VAR}` is expanded by the MCP client from its environment, not by us.
      [`portcullis-${definition.id}`]: {
        type: 'http',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder for the MCP client
        url: '${PORTCULLIS_URL:-http://127.0.0.1:8080}/mcp',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder for the MCP client
        headers: { Authorization: 'Bearer ${PORTCULLIS_AGENT_KEY}' },
      },
    },
  };
}
