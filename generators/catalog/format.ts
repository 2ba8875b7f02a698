/**
 * The catalog format: what the compiler writes to `generated/<provider>/catalog.json`
 * and the runtime loads. The emitter copies these declarations into
 * `generated/catalog-format.ts`, so the runtime reads the same types without
 * importing the compiler.
 */

export type Classification = 'read' | 'write' | 'destructive';

/** Which classification rule fired, in the order they are tried. */
export type ClassificationRule =
  | 'definition'
  | 'safe-method'
  | 'delete-method'
  | 'destructive-word'
  | 'executes-command'
  | 'default-write';

export type InventoryReason =
  | 'event_stream'
  | 'webhook'
  | 'callback'
  | 'excluded_by_definition'
  | 'unresolvable_ref'
  | 'external_ref'
  | 'invalid_operation'
  /** It needs a header the gateway sets itself (`Transfer-Encoding`, `Host`), which no argument may set. */
  | 'gateway_owned_header';

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface ServerVariableSpec {
  description?: string;
  /** The only values allowed (a host allowlist when the variable is in the host). */
  enum?: string[];
  default?: string;
  /** The connection setting that supplies the value when the call does not. */
  setting?: string;
  pattern?: string;
  /** Set by the operator per connection; never by the agent. */
  operatorOnly: boolean;
}

export interface ServerTemplate {
  url: string;
  variables: Record<string, ServerVariableSpec>;
}

/**
 * A parameter, serialized as its document says: `style`, `explode` and
 * `allowReserved` with OpenAPI's defaults already applied, or the one media
 * type of a `content` parameter. The runtime applies no defaults of its own.
 */
export type ParameterSpec = StyledParameterSpec | ContentParameterSpec;

export interface StyledParameterSpec {
  name: string;
  in: ParameterLocation;
  required: boolean;
  style: string;
  explode: boolean;
  allowReserved: boolean;
  contentType?: never;
}

export interface ContentParameterSpec {
  name: string;
  in: ParameterLocation;
  required: boolean;
  contentType: string;
  style?: never;
  explode?: never;
  allowReserved?: never;
}

/**
 * How a body argument becomes the request body: `json` any value as JSON text;
 * `form` and `multipart` an object, a field or part per property; `text` a
 * string sent as it is (XML, plain text, CSV, ...); `binary` base64 text,
 * decoded to the bytes sent.
 */
export type BodyKind = 'json' | 'form' | 'multipart' | 'text' | 'binary';

export interface BodySpec {
  required: boolean;
  /** The media type sent unless the call names one of `alternatives`. */
  contentType: string;
  encoding?: Record<string, { contentType?: string; style?: string; explode?: boolean }>;
  /** Absent in catalogs compiled before it: JSON, form and multipart by type, anything else text. */
  kind?: BodyKind;
  /** Every media type the operation offers, in document order, when it offers more than one. */
  offered?: string[];
  /** Why `contentType` was chosen among `offered`. */
  chosenBecause?: string;
  /** Other offered media types a call may name in its `contentType` argument: same argument, same schema. */
  alternatives?: string[];
  /** Multipart properties that carry files: base64 in the arguments, bytes with a filename on the wire. */
  files?: string[];
}

export interface RequestSpec {
  method: string;
  path: string;
  server: ServerTemplate;
  parameters: ParameterSpec[];
  body: BodySpec | null;
  /** Whether the connection's credential goes with this request. */
  credential: boolean;
}

export interface ActionHints {
  /** HTTP statuses that mean "still running": a result to report, not a failure. */
  stillRunningStatuses?: number[];
}

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface CatalogAction {
  name: string;
  title: string;
  description: string;
  document: string;
  operationId: string | null;
  pointer: string;
  deprecated: boolean;
  classification: Classification;
  classifiedBy: { rule: ClassificationRule; detail: string };
  annotations: ToolAnnotations;
  request: RequestSpec;
  hints: ActionHints;
  /** The operation's `x-*` fields, as written (informational; not part of the contract). */
  extensions: Record<string, unknown>;
  /** JSON Schema 2020-12: `{ server?, path?, query?, header?, cookie?, body? }`. */
  inputSchema: Record<string, unknown>;
  /** sha256 over everything an agent or the executor relies on. */
  contractHash: string;
  /**
   * Optional header parameters of the operation left out of the arguments,
   * because the gateway sets those headers itself (absent when none).
   */
  leftOutHeaders?: string[];
}

export interface InventoryEntry {
  document: string;
  pointer: string;
  method: string | null;
  path: string;
  operationId: string | null;
  reason: InventoryReason;
  detail: string;
}

export interface CatalogSource {
  document: string;
  repo: string;
  commit: string;
  path: string;
  sha256: string;
  /** Operations under `paths`: every one is an action or in the inventory. */
  operations: number;
}

export interface Catalog {
  $comment: string;
  format: 1;
  provider: { id: string; name: string };
  generator: { name: string; version: string };
  sources: CatalogSource[];
  /** sha256 over every action's contract hash and the inventory. */
  hash: string;
  /** Hosts the credential may be sent to; `settings` names connection settings whose value is a host. */
  hosts: { fixed: string[]; settings: string[] };
  /** Formats the documents use that ajv-formats does not know: annotations, never a validation failure. */
  annotationFormats: string[];
  counts: Record<Classification, number> & { inventory: number };
  actions: CatalogAction[];
  inventory: InventoryEntry[];
}

export interface CredentialField {
  name: string;
  label: string;
  secret: boolean;
  /** Where in the provider's product a person creates the credential. */
  obtain?: CredentialSource;
}

/** How the credential goes on the request: `Authorization: Bearer <value>`, or a named header. */
export type ConnectionAuth =
  | { kind: 'bearer'; fields: CredentialField[] }
  | { kind: 'header'; header: string; fields: CredentialField[] };

/** What `generated/<provider>/manifest.json` holds. */
export interface ConnectionManifest {
  $comment: string;
  format: 1;
  connection: {
    id: string;
    name: string;
    description: string;
    documentationUrl: string;
    transport: 'native_rest';
    auth: ConnectionAuth;
    allowedHosts: Catalog['hosts'];
    /** JSON Schema 2020-12 for the connection's settings (string values). */
    settingsSchema: Record<string, unknown>;
    /** The read action that proves a credential works; null when the definition names none. */
    verify: { action: string | null };
    counts: Catalog['counts'];
    catalogHash: string;
  };
  mcpServers: Record<string, { type: 'http'; url: string; headers: Record<string, string> }>;
}

/** Where a curated remote MCP server's endpoint is: one https URL, matched as it is or as a path prefix. */
export interface RemoteEndpoint {
  /** `https://host/path`, written as the URL standard writes it. */
  url: string;
  /** `exact`: this path only (a trailing slash aside); `prefix`: this path and every path below it, segment by segment. */
  match: 'exact' | 'prefix';
  /** The MCP transport served there: `streamable-http`, or the 2024-11-05 HTTP+SSE transport. */
  transport: 'streamable-http' | 'sse';
}

/** Where and how a person obtains a credential. */
export interface CredentialSource {
  text: string;
  url?: string;
}

/**
 * A way the server accepts to be signed in to, as its documentation says:
 * `none`, browser sign-in (`oauth`), a key sent as `Authorization: Bearer`, or
 * headers the server names. A hint for the connect flow; discovery still decides.
 */
export type RemoteAuthHint =
  | { kind: 'none' }
  | {
      kind: 'oauth';
      /** How a client gets its client id, when the documentation says. */
      clientRegistration?: 'dynamic' | 'metadata-document' | 'preregistered';
      scopes?: string[];
    }
  | { kind: 'bearer'; label: string; obtain: CredentialSource }
  | {
      kind: 'headers';
      headers: Array<{ name: string; label: string; secret: boolean; obtain: CredentialSource }>;
    };

/**
 * What `generated/<id>/manifest.json` holds for a curated remote MCP server
 * (`connection.transport` is `remote_mcp`): branding and hints for a server
 * connected by URL. It has no catalog and no actions: its tools are the
 * server's own, pinned at connect.
 */
export interface RemoteMcpManifest {
  $comment: string;
  format: 1;
  connection: {
    id: string;
    name: string;
    description: string;
    documentationUrl: string;
    transport: 'remote_mcp';
    endpoints: RemoteEndpoint[];
    /** The ways to sign in, the documentation's preferred one first. */
    auth: RemoteAuthHint[];
    /** What a new connection starts with: its name, and which classes of tools are enabled once reviewed. */
    defaults: { connectionName: string; enabledClasses: Classification[] };
    support: { text: string; url?: string };
    /** sha256 of the validated definition's canonical JSON. */
    definitionHash: string;
  };
  mcpServers: Record<string, { type: 'http'; url: string; headers: Record<string, string> }>;
}

/** Either kind of manifest under `generated/`: tell them apart by `connection.transport`. */
export type GeneratedManifest = ConnectionManifest | RemoteMcpManifest;
