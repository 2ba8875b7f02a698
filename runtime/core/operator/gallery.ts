/**
 * The gallery of apps a workspace can connect (**Apps → Connect an app**):
 * the compiled native providers and the curated remote MCP servers, each
 * with what its connect form asks for, as the catalogs and the curated
 * definitions say it (labels, where to get a key, settings with their
 * defaults, the base URL host where one is needed). Connecting one is the
 * verb the command line uses: `connect` for a provider, `connectUrl` for a
 * curated server (its definition's address). Values are write-only: the
 * gallery says which connections exist, never what they hold.
 */
import { z } from 'zod';
import type { CredentialSource, RemoteMcpManifest } from '../../../generated/catalog-format.ts';
import { GatewayError } from '../base/errors.ts';
import { didYouMean } from '../base/nearest-word.ts';
import type { ProviderCatalog } from '../catalog/catalog-set.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import { connectionViews } from './connection-views.ts';
import { connect } from './connections.ts';
import { type OperatorContext, parseInput } from './context.ts';
import { NameSchema } from './names.ts';
import { connectUrl, type RemoteNext } from './remote-connections.ts';

export interface GalleryField {
  name: string;
  label: string;
  secret: boolean;
  /** Where in the provider's product a person creates it. */
  obtain?: CredentialSource;
}

export interface GallerySetting {
  name: string;
  description: string;
  /** `choice`: one of `enum`; `host`: the host name calls go to (the base URL); `text`: anything. */
  kind: 'choice' | 'host' | 'text';
  enum?: string[];
  default?: string;
}

export interface GalleryApp {
  id: string;
  name: string;
  description: string;
  documentationUrl: string;
  /** `native`: a compiled provider; `curated`: a remote MCP server a curated definition names. */
  kind: 'native' | 'curated';
  /** A provider's actions by class; a curated server's tools are discovered when it is connected. */
  counts?: { read: number; write: number; destructive: number };
  /** The credential's fields (a provider's), or the key a curated server accepts instead of a sign-in. */
  fields: GalleryField[];
  settings: GallerySetting[];
  /** A curated server: the address connected, whether it offers a browser sign-in, its support text. */
  remote?: { url: string; signIn: boolean; support: RemoteMcpManifest['connection']['support'] };
  /** The connection name a new one takes when none is given. */
  defaultName: string;
  /** This workspace's connections of this app, by name. */
  connected: string[];
}

export async function listGallery(ctx: OperatorContext, input: unknown): Promise<GalleryApp[]> {
  const { workspace } = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  const views = await connectionViews(ctx, { workspace });
  const connectedTo = (id: string) =>
    views
      .filter((v) =>
        v.provider === REMOTE_MCP_PROVIDER ? v.remote?.curated?.id === id : v.provider === id,
      )
      .map((v) => v.name);
  const apps = [
    ...ctx.catalogs.providers.map((p) => providerApp(p, connectedTo(p.id))),
    ...ctx.catalogs.remotes.list.map((m) => remoteApp(m, connectedTo(m.connection.id))),
  ];
  return apps.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function providerApp(provider: ProviderCatalog, connected: string[]): GalleryApp {
  const { connection } = provider.manifest;
  const properties = (connection.settingsSchema.properties ?? {}) as Record<
    string,
    { description?: string; enum?: string[]; default?: string }
  >;
  const hostSettings = new Set(connection.allowedHosts.settings);
  return {
    id: connection.id,
    name: connection.name,
    description: connection.description,
    documentationUrl: connection.documentationUrl,
    kind: 'native',
    counts: {
      read: connection.counts.read,
      write: connection.counts.write,
      destructive: connection.counts.destructive,
    },
    fields: connection.auth.fields.map(({ name, label, secret, obtain }) => ({
      name,
      label,
      secret,
      ...(obtain ? { obtain } : {}),
    })),
    settings: Object.entries(properties).map(([name, p]) => ({
      name,
      description: p.description ?? name,
      kind: p.enum ? 'choice' : hostSettings.has(name) ? 'host' : 'text',
      ...(p.enum ? { enum: p.enum } : {}),
      ...(p.default !== undefined ? { default: p.default } : {}),
    })),
    defaultName: connection.id,
    connected,
  };
}

function remoteApp(manifest: RemoteMcpManifest, connected: string[]): GalleryApp {
  const { connection } = manifest;
  const fields: GalleryField[] = connection.auth.flatMap((hint) =>
    hint.kind === 'bearer'
      ? [{ name: 'token', label: hint.label, secret: true, obtain: hint.obtain }]
      : [],
  );
  return {
    id: connection.id,
    name: connection.name,
    description: connection.description,
    documentationUrl: connection.documentationUrl,
    kind: 'curated',
    fields,
    settings: [],
    remote: {
      url: connection.endpoints[0]!.url,
      signIn: connection.auth.some((hint) => hint.kind === 'oauth'),
      support: connection.support,
    },
    defaultName: connection.defaults.connectionName,
    connected,
  };
}

export const ConnectAppSchema = z.strictObject({
  workspace: z.string().min(1),
  app: z.string().min(1),
  name: NameSchema.optional(),
  /** A provider's settings by name (defaults apply to those not given). */
  settings: z.record(z.string(), z.string()).optional(),
  /** A provider's credential fields by name, or a curated server's key as `token` (write-only). */
  credential: z.record(z.string(), z.string()).optional(),
});

export interface ConnectedApp {
  connection: string;
  kind: GalleryApp['kind'];
  /** What comes next: the connection's review, or (a curated server) a sign-in or a key. */
  next: RemoteNext;
}

/**
 * Connects a gallery app with the command line's verb: a provider with
 * `connect` (its settings checked, its credential verified, then sealed), a
 * curated server with `connectUrl` at its definition's address (a key sent
 * as `Authorization: Bearer`; without one, the probe decides: a sign-in or a
 * key to give next, on the draft it keeps). Each verb audits itself.
 */
export async function connectApp(ctx: OperatorContext, input: unknown): Promise<ConnectedApp> {
  const parsed = parseInput(ConnectAppSchema, input);
  const name = parsed.name === undefined ? {} : { name: parsed.name };
  const provider = ctx.catalogs.get(parsed.app);
  if (provider) {
    const connection = await connect(ctx, {
      workspace: parsed.workspace,
      provider: provider.id,
      ...name,
      settings: parsed.settings ?? {},
      credential: parsed.credential ?? {},
    });
    return { connection: connection.name, kind: 'native', next: 'review' };
  }
  const remote = ctx.catalogs.remotes.get(parsed.app);
  if (!remote) {
    const known = [
      ...ctx.catalogs.providers.map((p) => p.id),
      ...ctx.catalogs.remotes.list.map((m) => m.connection.id),
    ];
    throw new GatewayError(
      'not_found',
      `no app ${parsed.app} in the gallery${didYouMean(parsed.app, known)}`,
      { field: 'app', detail: { known } },
    );
  }
  const extra = Object.keys(parsed.settings ?? {})[0];
  if (extra !== undefined)
    throw new GatewayError(
      'invalid_input',
      `settings.${extra}: ${remote.connection.name} has no settings`,
      {
        field: `settings.${extra}`,
      },
    );
  const { token, ...others } = parsed.credential ?? {};
  const other = Object.keys(others)[0];
  if (other !== undefined)
    throw new GatewayError(
      'invalid_input',
      `credential.${other}: ${remote.connection.name} takes a key (credential.token) or a sign-in`,
      { field: `credential.${other}` },
    );
  const result = await connectUrl(ctx, {
    workspace: parsed.workspace,
    url: remote.connection.endpoints[0]!.url,
    ...name,
    ...(token ? { token } : {}),
  }).catch((error: unknown) => {
    throw asKeyField(error);
  });
  return { connection: result.connection.name, kind: 'curated', next: result.next };
}

/** `connectUrl`'s `token` is this input's `credential.token`: a refusal names the field the form has. */
function asKeyField(error: unknown): unknown {
  if (!(error instanceof GatewayError) || error.field !== 'token') return error;
  return new GatewayError(error.code, error.message, {
    field: 'credential.token',
    ...(error.detail ? { detail: error.detail } : {}),
    cause: error,
  });
}
