/**
 * The curated definition of a native REST provider: everything about a provider
 * that its OpenAPI documents do not say (or say wrongly) and that a maintainer
 * reviews by hand. Validated with zod when the compiler loads it.
 */
import { z } from 'zod';
import { CredentialSourceSchema } from './remote-definition.ts';

const identifier = z.string().regex(/^[a-z][a-z0-9-]*$/, 'lowercase letters, digits and dashes');

/**
 * `<document>:<operationId>` or `<document>:<METHOD> <path>` for operations without an id
 * (`<document>:* <path>` excludes a path item that does not resolve).
 */
export const OperationRefSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]*:(\S+|([A-Z]+|\*) \/\S*)$/, 'write <document>:<operationId>');

export const PinSchema = z.strictObject({
  repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'write owner/name'),
  commit: z.string().regex(/^[0-9a-f]{40}$/, 'a full 40-character commit sha'),
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, '64 lowercase hex digits'),
});
export type Pin = z.infer<typeof PinSchema>;

/** `specs/<provider>/pins.json`: one pin per document id. */
export const PinsSchema = z.record(identifier, PinSchema);
export type Pins = z.infer<typeof PinsSchema>;

const ServerVariableSchema = z.strictObject({
  description: z.string().min(1),
  /** The only values allowed. Required for a variable inside the host. */
  enum: z.array(z.string().min(1)).min(1).optional(),
  /** The connection setting whose value is used when a call does not name one. */
  setting: z.string().optional(),
  /** A pattern the value must match (for variables in the path part of the URL). */
  pattern: z.string().optional(),
  /** Only the operator sets it (per connection); agents cannot choose it per call. */
  operatorOnly: z.boolean().default(false),
});
export type ServerVariable = z.infer<typeof ServerVariableSchema>;

const ServerSchema = z.strictObject({
  /** An absolute https URL template: `https://api.{metro}.unikraft.cloud`. */
  url: z.string().regex(/^https:\/\/[^/]+/, 'an https URL template'),
  variables: z.record(z.string(), ServerVariableSchema).default({}),
});
export type Server = z.infer<typeof ServerSchema>;

const DocumentSchema = z.strictObject({
  title: z.string().min(1),
  /**
   * Prefix of every tool name from this document, e.g. `unikraft_sandbox_`:
   * the provider's id first (the compiler checks it), words joined by one underscore
   * (a name with `__` is the runtime's `<connection>__<tool>`).
   */
  toolPrefix: z
    .string()
    .regex(
      /^[a-z][a-z0-9]*(_[a-z0-9]+)*_$/,
      'lowercase words joined by one underscore, ending in an underscore',
    ),
  server: ServerSchema,
  /** `always`: every operation carries the credential; `as-declared`: per the document's security. */
  credential: z.enum(['always', 'as-declared']).default('as-declared'),
});

const SettingSchema = z.strictObject({
  description: z.string().min(1),
  type: z.literal('string'),
  enum: z.array(z.string()).min(1).optional(),
  default: z.string().optional(),
});

const CredentialFieldSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-zA-Z0-9]*$/),
  label: z.string().min(1),
  secret: z.boolean(),
  /** Where in the provider's product a person creates it: shown beside the field when connecting. */
  obtain: CredentialSourceSchema.optional(),
});

const AuthSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('bearer'), fields: z.array(CredentialFieldSchema).length(1) }),
  z.strictObject({
    kind: z.literal('header'),
    header: z.string().regex(/^[A-Za-z0-9-]+$/),
    fields: z.array(CredentialFieldSchema).length(1),
  }),
]);

const ClassificationOverrideSchema = z.strictObject({
  classification: z.enum(['read', 'write', 'destructive']),
  why: z.string().min(1),
});

const HintSchema = z.strictObject({
  /** HTTP statuses that mean "still running, ask again" rather than a failure. */
  stillRunningStatuses: z.array(z.number().int().min(100).max(599)).min(1),
  why: z.string().min(1),
});

export const ProviderDefinitionSchema = z.strictObject({
  id: identifier,
  name: z.string().min(1),
  description: z.string().min(1),
  documentationUrl: z.url({ protocol: /^https$/ }),
  documents: z.record(identifier, DocumentSchema),
  auth: AuthSchema,
  settings: z.record(z.string(), SettingSchema).default({}),
  /** The read action that proves a credential works. */
  verify: OperationRefSchema,
  classification: z.record(OperationRefSchema, ClassificationOverrideSchema).default({}),
  exclude: z.record(OperationRefSchema, z.string().min(1)).default({}),
  hints: z.record(OperationRefSchema, HintSchema).default({}),
});
export type ProviderDefinitionInput = z.input<typeof ProviderDefinitionSchema>;
export type ProviderDefinition = z.output<typeof ProviderDefinitionSchema>;

/** Types a definition in its own file; the compiler validates it with {@link ProviderDefinitionSchema}. */
export function defineProvider(definition: ProviderDefinitionInput): ProviderDefinitionInput {
  return definition;
}
