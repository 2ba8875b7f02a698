/**
 * The durable shape of a remote MCP connection (provider `remote-mcp`): where
 * the server is, what it speaks, how it is authenticated (header names only;
 * the values are vault secrets), and the tool list pinned at its last
 * discovery. Both routes (a guided URL, a pasted `mcpServers` snippet)
 * normalise into this one record.
 */
import type { Classification, ToolAnnotations } from '../../../generated/catalog-format.ts';
import type { UpstreamDelegation } from './delegation.ts';

/** The provider id of every remote MCP connection. */
export const REMOTE_MCP_PROVIDER = 'remote-mcp';

/** Streamable HTTP (2025-03-26 and later, 2026-07-28), or the 2024-11-05 HTTP+SSE transport. */
export type RemoteTransport = 'streamable-http' | 'sse';
/**
 * `bearer`: one key sent as `Authorization: Bearer`; `headers`: custom headers
 * by name; `oauth`: a browser sign-in, whose access token goes as `Bearer`.
 */
export type RemoteAuthKind = 'none' | 'bearer' | 'headers' | 'oauth';

/** The authorization server metadata fields the upstream OAuth engine uses, every address already checked. */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  revocation_endpoint?: string;
  scopes_supported?: string[];
  response_types_supported?: string[];
  grant_types_supported?: string[];
  code_challenge_methods_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  revocation_endpoint_auth_methods_supported?: string[];
  client_id_metadata_document_supported?: boolean;
  authorization_response_iss_parameter_supported?: boolean;
}

/** What OAuth discovery found for an `oauth` connection (no secret), and its switches. */
export interface RemoteOAuth {
  issuer: string;
  /** RFC 8707 `resource`: the canonical MCP endpoint. */
  resource: string;
  resourceMetadataUrl: string;
  /** The scopes a sign-in asks for. */
  scopes: string[];
  metadata: AuthorizationServerMetadata;
  /** Leaves `resource` out of every request, for servers that refuse it (Entra). */
  omitResource: boolean;
  /** Client credentials for the shared credential, token exchange for members' calls (`connection auth`). */
  delegation?: UpstreamDelegation;
}
/**
 * Why a connection is still a draft: the server wants a browser sign-in (it
 * publishes OAuth metadata), or a key or headers no one has given yet.
 */
export type RemoteDraft = 'sign_in_needed' | 'credential_needed';

export interface RemoteServerInfo {
  name: string;
  version: string;
  title?: string;
}

/**
 * What a server said it serves beyond tools (its `prompts`, `resources` and
 * `completions` capabilities) when it was last connected or discovered: what
 * an agent's handshake declares, without asking the server again.
 */
export interface RemoteFeatures {
  prompts: boolean;
  resources: boolean;
  completions: boolean;
  /** It takes resource subscriptions (absent in a record made before they were relayed: no). */
  subscribe?: boolean;
  /**
   * What it declares on its 2025 wire, recorded at 2026-07-28 and still
   * offering one: a 2025 caller is served there (remote/open-session.ts).
   */
  legacyWire?: Omit<RemoteFeatures, 'legacyWire'>;
}

export interface RemoteEndpoint {
  connectionId: string;
  workspaceId: string;
  /** The MCP endpoint as the operator gave it (normalised: no fragment, no userinfo). */
  url: string;
  /** What the probe found; null until a probe got that far. */
  transport: RemoteTransport | null;
  /** The protocol revision the server agreed to (`2026-07-28`, `2025-11-25`, `2024-11-05`, …). */
  revision: string | null;
  authKind: RemoteAuthKind;
  /** The custom headers' names (their values are sealed credential fields). */
  headerNames: string[];
  serverInfo: RemoteServerInfo | null;
  /** What the server serves beyond tools, as its last discovery found it; null until one told. */
  features: RemoteFeatures | null;
  draft: RemoteDraft | null;
  /** Tool name → the class an operator chose over the automatic rules. */
  classificationOverrides: Record<string, Classification>;
  /** When the pinned list goes stale (the server's `ttlMs`) and is discovered again; null: never on its own. */
  toolsExpireAt: string | null;
  /** Set for an `oauth` connection once discovery found its sign-in. */
  oauth: RemoteOAuth | null;
  updatedAt: string;
}

/** What an agent and the executor rely on in one upstream tool: its contract hash covers all of it. */
export interface RemoteToolContract {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Partial<ToolAnnotations>;
  /** The MCP App it names (`_meta.ui`): absent for a tool without one, so older pins hash as before. */
  ui?: ToolApp;
}

/** What a tool says of its app: the `ui://` resource a host renders, and who may call the tool. */
export interface ToolApp {
  resourceUri: string;
  /** `model`, `app` (ext-apps' default: both). */
  visibility?: string[];
}

/** The origins an app's HTML may reach, as its resource's `_meta.ui.csp` declares them. */
export interface AppCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** The permissions an app may ask the host for (`_meta.ui.permissions`). */
export const APP_PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
export type AppPermission = (typeof APP_PERMISSIONS)[number];

/**
 * An MCP App's HTML as Portcullis pins it (read at discovery): the sha256 of
 * its content and what its `_meta.ui` declares. Part of its resource's
 * contract, so a changed page, origin or permission is a changed contract.
 */
export interface AppContract {
  contentSha256: string;
  mimeType?: string;
  csp: AppCsp;
  permissions: AppPermission[];
  /** The dedicated sandbox origin it asks for, when it asks for one. */
  domain?: string;
}

export interface RemoteTool {
  connectionId: string;
  workspaceId: string;
  name: string;
  contract: RemoteToolContract;
  contractHash: string;
  classification: Classification;
  /** Which rule classified it (`annotation:readOnlyHint`, `verb:delete`, `override`, …). */
  classificationRule: string;
  discoveredAt: string;
  /**
   * The contract last reviewed, while a change to it waits for review
   * (found by a refresh, `list_changed` or an expired `ttlMs`): what the
   * review compares the current contract with. Null otherwise.
   */
  changedFrom: ReviewedContract | null;
}

export interface ReviewedContract<C = RemoteToolContract> {
  contract: C;
  contractHash: string;
  /** When the change was first found. */
  since: string;
}

/** The prompts, resources and resource templates a server lists: pinned and reviewed as its tools are. */
export type RemoteFeatureKind = 'prompt' | 'resource' | 'template';

/** What an agent reads of a prompt: its contract hash covers all of it (not the messages a get returns). */
export interface PromptContract {
  name: string;
  title?: string;
  description?: string;
  /** In the server's order. */
  arguments?: Array<{ name: string; title?: string; description?: string; required?: boolean }>;
}

/** What an agent reads of a resource in a list. */
export interface ResourceContract {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** An MCP App's page (a `ui://` resource): read and pinned at discovery. */
  app?: AppContract;
}

/** What an agent reads of a resource template in a list. */
export interface TemplateContract {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export type RemoteFeatureContract =
  | { kind: 'prompt'; contract: PromptContract }
  | { kind: 'resource'; contract: ResourceContract }
  | { kind: 'template'; contract: TemplateContract };

/**
 * One pinned prompt, resource or template of a connection. Its `key` is the
 * action its policy is kept under (`prompt:<name>`, `resource:<uri>`,
 * `template:<uriTemplate>`; a tool name has no colon), so it is reviewed,
 * quarantined, blocked and retired as a tool is.
 */
export type RemoteFeature = RemoteFeatureContract & {
  connectionId: string;
  workspaceId: string;
  key: string;
  contractHash: string;
  discoveredAt: string;
  changedFrom: ReviewedContract<RemoteFeatureContract['contract']> | null;
};
