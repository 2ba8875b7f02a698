/**
 * Connecting a provider: check the settings against the manifest's schema,
 * verify the credential with the provider's verify action, and only then write
 * the connection, its sealed credential and its default action policies in one
 * transaction. A failed verification writes nothing.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { didYouMean } from '../base/nearest-word.ts';
import type { ProviderCatalog } from '../catalog/catalog-set.ts';
import { syncPolicies } from '../governance/contract-sync.ts';
import { newId } from '../governance/keys.ts';
import { assertNameFree } from '../governance/reserved-names.ts';
import { isInputRequired } from '../mcp/server/tool-backend.ts';
import { isTaskStarted } from '../mcp/wire/tasks.ts';
import type { Connection } from '../model/governance.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import { type Execution, OPERATOR_CALL } from '../sources/executor.ts';
import { agentOrThrow } from './agents.ts';
import { connectionOrThrow } from './connection-lookup.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import { NameSchema } from './names.ts';
import { remoteCredentialFields } from './remote-credential.ts';

/** The credential's fields by name, or one string for a provider with a single field. */
const SecretValuesSchema = z.union([
  z.string().min(1, 'a non-empty value'),
  z.record(z.string(), z.string().min(1, 'a non-empty value')),
]);

export const ConnectSchema = z.strictObject({
  workspace: z.string().min(1),
  provider: z.string().min(1),
  /** Defaults to the provider id (the connection's tools then keep the catalog's names). */
  name: NameSchema.optional(),
  settings: z.record(z.string(), z.string()).default({}),
  /** The credential's fields by name (write-only). */
  credential: SecretValuesSchema,
});

export async function connect(ctx: OperatorContext, input: unknown): Promise<Connection> {
  return attempt(ctx, 'connection.create', input, async () => {
    const parsed = parseInput(ConnectSchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const provider = ctx.catalogs.getOrThrow(parsed.provider);
    if (parsed.name !== undefined)
      assertNameFree(ctx.catalogs, parsed.name, { provider: provider.id }, 'name');
    const settings = checkSettings(provider, parsed.settings);
    const credential = checkCredential(provider, parsed.credential);
    const now = ctx.now().toISOString();
    const connection: Connection = {
      id: newId(),
      workspaceId: workspace.id,
      name: parsed.name ?? provider.id,
      provider: provider.id,
      settings,
      status: 'active',
      health: 'ok',
      failureStreak: 0,
      createdAt: now,
      updatedAt: now,
    };
    if (await ctx.store.connections.byName(workspace.id, connection.name)) {
      throw new GatewayError(
        'conflict',
        `workspace ${workspace.name} already has a connection ${connection.name}`,
        {
          field: 'name',
        },
      );
    }
    await verifyCredential(ctx, provider, connection, credential);

    await ctx.store.transaction(async (tx) => {
      await tx.connections.create(connection);
      await ctx.vault.put(
        tx,
        { workspaceId: workspace.id, connectionId: connection.id, agentId: null },
        credential,
        now,
      );
      await tx.policies.putMany(
        syncPolicies(connection, provider.catalog.actions, [], now, 'defaults').changed,
      );
      await audit(ctx, tx, {
        action: 'connection.create',
        workspaceId: workspace.id,
        connectionId: connection.id,
        subject: connection.provider,
      });
    });
    return connection;
  });
}

export async function listConnections(ctx: OperatorContext, input: unknown): Promise<Connection[]> {
  const { workspace } = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  return ctx.store.connections.list((await workspaceOrThrow(ctx, workspace)).id);
}

/**
 * Takes a connection out of service (every call refused with
 * `connection_inactive`, its tools hidden) or back; its grants, policies and
 * credentials stay as they are.
 */
export async function setConnectionStatus(
  ctx: OperatorContext,
  status: 'active' | 'disabled',
  input: unknown,
): Promise<Connection> {
  return attempt(
    ctx,
    status === 'active' ? 'connection.enable' : 'connection.disable',
    input,
    async () => {
      const ref = parseInput(
        z.strictObject({ workspace: z.string().min(1), connection: z.string().min(1) }),
        input,
      );
      const workspace = await workspaceOrThrow(ctx, ref.workspace);
      const connection = await connectionOrThrow(ctx, workspace.id, ref.connection);
      const updatedAt = ctx.now().toISOString();
      await ctx.store.transaction(async (tx) => {
        await tx.connections.update(workspace.id, connection.id, { status, updatedAt });
        await audit(ctx, tx, {
          action: status === 'active' ? 'connection.enable' : 'connection.disable',
          workspaceId: workspace.id,
          connectionId: connection.id,
          subject: connection.name,
        });
      });
      return { ...connection, status, updatedAt };
    },
  );
}

export const SetCredentialSchema = z.strictObject({
  workspace: z.string().min(1),
  connection: z.string().min(1),
  /** Set for an agent's personal credential; absent for the connection's shared one. */
  agent: z.string().min(1).optional(),
  credential: SecretValuesSchema,
});

/** Replaces (rotates) a shared credential or sets an agent's personal one, after verifying it. */
export async function setCredential(ctx: OperatorContext, input: unknown): Promise<void> {
  return attempt(ctx, 'credential.set', input, async () => {
    const parsed = parseInput(SetCredentialSchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    const connection = await connectionOrThrow(ctx, workspace.id, parsed.connection);
    const agentId = parsed.agent ? (await agentOrThrow(ctx, workspace.id, parsed.agent)).id : null;
    let credential: Record<string, string>;
    if (connection.provider === REMOTE_MCP_PROVIDER) {
      credential = await remoteCredentialFields(ctx, connection, parsed.credential);
    } else {
      const provider = ctx.catalogs.getOrThrow(connection.provider);
      credential = checkCredential(provider, parsed.credential);
      await verifyCredential(ctx, provider, connection, credential);
    }
    const now = ctx.now().toISOString();
    await ctx.store.transaction(async (tx) => {
      await ctx.vault.put(
        tx,
        { workspaceId: workspace.id, connectionId: connection.id, agentId },
        credential,
        now,
      );
      await audit(ctx, tx, {
        action: 'credential.set',
        workspaceId: workspace.id,
        connectionId: connection.id,
        subject: agentId ?? 'shared',
      });
    });
    // The old credential's upstream session ends; the next call opens one with the new.
    ctx.remote?.executor.endSessions(connection.id, agentId);
  });
}

function checkSettings(
  provider: ProviderCatalog,
  settings: Record<string, string>,
): Record<string, string> {
  const schema = provider.manifest.connection.settingsSchema;
  const validate = provider.settingsValidator();
  const withDefaults = { ...defaultsOf(schema), ...settings };
  if (!validate(withDefaults)) {
    const error = validate.errors?.[0];
    const params = error?.params as
      | { additionalProperty?: string; allowedValues?: unknown[] }
      | undefined;
    const known = Object.keys((schema.properties as object | undefined) ?? {});
    const field = params?.additionalProperty ?? error?.instancePath.slice(1) ?? '';
    const given = settings[field];
    let text = error?.message ?? 'invalid';
    if (params?.additionalProperty !== undefined) {
      text = `${provider.id} has no such setting (it has ${known.join(', ') || 'none'})${didYouMean(field, known)}`;
    } else if (params?.allowedValues !== undefined) {
      const words = params.allowedValues.map(String);
      text = `expected one of ${words.join(', ')}${given === undefined ? '' : `, got ${JSON.stringify(given)}${didYouMean(given, words)}`}`;
    }
    throw new GatewayError('invalid_input', `settings.${field}: ${text}`, {
      field: `settings.${field}`,
      detail: { allowed: known },
    });
  }
  return withDefaults;
}

function defaultsOf(schema: Record<string, unknown>): Record<string, string> {
  const properties = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  return Object.fromEntries(
    Object.entries(properties).flatMap(([name, p]) =>
      typeof p.default === 'string' ? [[name, p.default]] : [],
    ),
  );
}

function checkCredential(
  provider: ProviderCatalog,
  given: string | Record<string, string>,
): Record<string, string> {
  const fields = provider.manifest.connection.auth.fields;
  const values = typeof given === 'string' ? { [fields[0]!.name]: given } : given;
  for (const field of fields) {
    if (!values[field.name]) {
      throw new GatewayError(
        'invalid_input',
        `${provider.id} needs ${field.label} (${field.name})`,
        {
          field: `credential.${field.name}`,
        },
      );
    }
  }
  const extra = Object.keys(values).find((name) => !fields.some((f) => f.name === name));
  if (extra)
    throw new GatewayError('invalid_input', `${provider.id} has no credential field ${extra}`, {
      field: `credential.${extra}`,
    });
  return values;
}

async function verifyCredential(
  ctx: OperatorContext,
  provider: ProviderCatalog,
  connection: Connection,
  credential: Record<string, string>,
): Promise<void> {
  const verify = provider.manifest.connection.verify.action;
  const source = ctx.toolSources.of(connection);
  const action = verify ? source?.action(verify) : undefined;
  if (!source || !action) return;
  const name = provider.manifest.connection.name;
  let execution: Execution;
  try {
    execution = await ctx.executors.for(source.kind).execute({
      ...OPERATOR_CALL,
      target: { connection, source, action },
      arguments: {},
      credential,
    });
  } catch (error) {
    // The provider was not reached, or did not answer: nothing says the credential is wrong.
    const code = error instanceof GatewayError ? error.code : 'internal';
    const host = error instanceof GatewayError ? error.detail?.host : undefined;
    throw new GatewayError(
      'verify_failed',
      `could not verify the credential: ${name} did not answer ${action.name}${host ? ` at ${String(host)}` : ''} (${code}). Check the network and the connection's settings; in development, PORTCULLIS_DEV_UPSTREAMS sends its calls to a mock such as npm run mock`,
      { detail: { action: action.name, cause: code }, cause: error },
    );
  }
  const { outcome } = execution;
  if (!isInputRequired(outcome) && !isTaskStarted(outcome) && !outcome.isError) return;
  const status = execution.upstreamStatus;
  const rejected = status === 401 || status === 403;
  throw new GatewayError(
    'verify_failed',
    rejected
      ? `${name} refused the credential: ${action.name} answered HTTP ${status}`
      : `could not verify the credential: ${action.name} answered HTTP ${status}, which says nothing about the credential; try again later`,
    {
      // Only a 401 or 403 is the credential's fault.
      ...(rejected ? { field: 'credential' } : {}),
      detail: { action: action.name, status },
    },
  );
}
