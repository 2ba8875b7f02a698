/**
 * The curated definition of a remote MCP server: branding, the endpoint URL
 * patterns that identify it, how it is signed in to, the defaults a new
 * connection starts with and support text. A convenience layer over the
 * generic connect-by-URL route, never a separate capability: the server's
 * tools are discovered, pinned and reviewed like any other remote server's.
 * Validated with zod when the compiler loads it; the compiler then checks
 * what zod cannot (see generators/compile/ensure-remote.ts).
 */
import { z } from 'zod';

const identifier = z.string().regex(/^[a-z][a-z0-9-]*$/, 'lowercase letters, digits and dashes');
const httpsUrl = z.url({ protocol: /^https$/, error: 'an https URL' });
const text = z.string().trim().min(1, 'a non-empty text');

const EndpointSchema = z.strictObject({
  /** `https://host/path`, exactly as the URL standard writes it: no query, fragment or credentials. */
  url: z.string().min(1),
  /** `exact`: this path only (a trailing slash aside); `prefix`: this path and the paths below it. */
  match: z.enum(['exact', 'prefix']),
  transport: z.enum(['streamable-http', 'sse']).default('streamable-http'),
});

export const CredentialSourceSchema = z.strictObject({
  /** Where in the vendor's product a person creates the credential, in words. */
  text,
  url: httpsUrl.optional(),
});

const AuthHintSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none') }),
  z.strictObject({
    kind: z.literal('oauth'),
    clientRegistration: z.enum(['dynamic', 'metadata-document', 'preregistered']).optional(),
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'an OAuth scope')).optional(),
  }),
  z.strictObject({ kind: z.literal('bearer'), label: text, obtain: CredentialSourceSchema }),
  z.strictObject({
    kind: z.literal('headers'),
    headers: z
      .array(
        z.strictObject({
          name: z.string().min(1),
          label: text,
          secret: z.boolean(),
          obtain: CredentialSourceSchema,
        }),
      )
      .min(1, 'at least one header'),
  }),
]);

export const RemoteDefinitionSchema = z.strictObject({
  id: identifier,
  name: text,
  description: text,
  /** The vendor's page that documents the endpoint and its sign-in. */
  documentationUrl: httpsUrl,
  endpoints: z.array(EndpointSchema).min(1, 'at least one endpoint'),
  /** The ways the server accepts, the documentation's preferred one first; one per kind. */
  auth: z.array(AuthHintSchema).min(1, 'at least one way to sign in'),
  defaults: z
    .strictObject({
      /** The connection's name when the operator gives none (default: the id). */
      connectionName: identifier.optional(),
      /** Which classes are enabled once a tool is reviewed (default: reads only). */
      enabledClasses: z
        .array(z.enum(['read', 'write', 'destructive']))
        .min(1)
        .default(['read']),
    })
    .default({ enabledClasses: ['read'] }),
  support: z.strictObject({ text, url: httpsUrl.optional() }),
});
export type RemoteDefinitionInput = z.input<typeof RemoteDefinitionSchema>;
export type RemoteDefinition = z.output<typeof RemoteDefinitionSchema>;

/** Types a definition in its own file; the compiler validates it with {@link RemoteDefinitionSchema}. */
export function defineRemote(definition: RemoteDefinitionInput): RemoteDefinitionInput {
  return definition;
}
