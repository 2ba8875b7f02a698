/**
 * Turns the engines' unique and foreign-key violations into `GatewayError`s
 * that name the field: `conflict` for a taken value, `not_found` for a
 * missing referenced row. Messages name the kind of row, never a value.
 *
 * PostgreSQL names the violated constraint. SQLite names the columns of a
 * unique constraint but not which foreign key failed, so for SQLite the
 * store looks the candidate references up (a failed statement leaves an
 * SQLite transaction open; a PostgreSQL one would be aborted).
 */
import type { Kysely } from 'kysely';
import { GatewayError } from '../../../core/base/errors.ts';
import type { Database, Engine } from './schema.ts';

interface UniqueRule {
  /** The PostgreSQL constraint name. */
  constraint: string;
  /** The columns as SQLite lists them: `UNIQUE constraint failed: <columns>`. */
  columns: string;
  field: string;
  message: string;
}

const UNIQUE_RULES: readonly UniqueRule[] = [
  unique('workspaces_pkey', 'workspaces.id', 'id', 'a workspace with this id exists'),
  unique('workspaces_name_key', 'workspaces.name', 'name', 'a workspace with this name exists'),
  unique('agents_pkey', 'agents.id', 'id', 'an agent with this id exists'),
  unique(
    'agents_workspace_id_key',
    'agents.workspace_id, agents.id',
    'id',
    'an agent with this id exists',
  ),
  unique(
    'agents_name_key',
    'agents.workspace_id, agents.name',
    'name',
    'an agent with this name exists in the workspace',
  ),
  unique('agents_key_hash_key', 'agents.key_hash', 'keyHash', 'an agent with this key exists'),
  unique('connections_pkey', 'connections.id', 'id', 'a connection with this id exists'),
  unique(
    'connections_workspace_id_key',
    'connections.workspace_id, connections.id',
    'id',
    'a connection with this id exists',
  ),
  unique(
    'connections_name_key',
    'connections.workspace_id, connections.name',
    'name',
    'a connection with this name exists in the workspace',
  ),
  unique('grants_pkey', 'grants.id', 'id', 'a grant with this id exists'),
  unique(
    'grants_agent_connection_key',
    'grants.agent_id, grants.connection_id',
    'agent',
    'the agent already has a grant on this connection',
  ),
  unique('member_grants_pkey', 'member_grants.id', 'id', 'a grant with this id exists'),
  unique(
    'member_grants_member_connection_key',
    'member_grants.member_id, member_grants.connection_id',
    'member',
    'the member already has a grant on this connection',
  ),
  unique('admin_tokens_pkey', 'admin_tokens.id', 'id', 'an admin token with this id exists'),
  unique(
    'admin_tokens_token_hash_key',
    'admin_tokens.token_hash',
    'tokenHash',
    'an admin token with this hash exists',
  ),
  unique('oauth_members_name_key', 'oauth_members.name', 'name', 'a member with this name exists'),
  unique('oauth_members_pkey', 'oauth_members.id', 'id', 'a member with this id exists'),
  unique(
    'identity_providers_name_key',
    'identity_providers.name',
    'name',
    'an identity provider with this name exists',
  ),
  unique(
    'identity_providers_issuer_key',
    'identity_providers.issuer',
    'issuer',
    'an identity provider with this issuer exists',
  ),
  unique(
    'member_identities_pkey',
    'member_identities.issuer, member_identities.subject',
    'subject',
    'a member has this identity already',
  ),
  unique('oauth_clients_pkey', 'oauth_clients.id', 'id', 'a client with this id exists'),
  unique(
    'oauth_consents_member_client_key',
    'oauth_consents.member_id, oauth_consents.client_id',
    'client',
    'the member already has a consent for this client',
  ),
];

function unique(constraint: string, columns: string, field: string, message: string): UniqueRule {
  return { constraint, columns, field, message };
}

/** A row the write points at, named by the field the caller passed. */
export type Reference =
  | { field: 'workspace'; id: string }
  | { field: 'member'; id: string }
  | { field: 'agent' | 'connection'; workspaceId: string; id: string };

/**
 * The `GatewayError` for a constraint violation, or `error` itself when it
 * is something else. `references` are the rows the failed write points at,
 * in the order to report them.
 */
export async function constraintError(
  error: unknown,
  db: Kysely<Database>,
  engine: Engine,
  references: readonly Reference[] = [],
): Promise<unknown> {
  const violation = violationOf(error, engine);
  if (violation === undefined) return error;
  if (violation.kind === 'unique') {
    const rule = UNIQUE_RULES.find((candidate) =>
      engine === 'postgres'
        ? candidate.constraint === violation.name
        : violation.name.endsWith(`: ${candidate.columns}`),
    );
    return new GatewayError('conflict', rule?.message ?? 'the row already exists', {
      ...(rule === undefined ? {} : { field: rule.field }),
      cause: error,
    });
  }
  const field =
    engine === 'postgres'
      ? /_([a-z]+)_fk$/.exec(violation.name)?.[1]
      : await firstMissing(db, references);
  return new GatewayError('not_found', `${field ?? 'a referenced row'} not found`, {
    ...(field === undefined ? {} : { field }),
    cause: error,
  });
}

interface Violation {
  kind: 'unique' | 'foreign-key';
  /** PostgreSQL: the constraint name; SQLite: the message. */
  name: string;
}

function violationOf(error: unknown, engine: Engine): Violation | undefined {
  if (!(error instanceof Error) || !('code' in error)) return undefined;
  const code = error.code;
  if (engine === 'postgres') {
    const constraint =
      'constraint' in error && typeof error.constraint === 'string' ? error.constraint : '';
    if (code === '23505') return { kind: 'unique', name: constraint };
    if (code === '23503') return { kind: 'foreign-key', name: constraint };
    return undefined;
  }
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return { kind: 'unique', name: error.message };
  }
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return { kind: 'foreign-key', name: error.message };
  return undefined;
}

async function firstMissing(
  db: Kysely<Database>,
  references: readonly Reference[],
): Promise<string | undefined> {
  for (const reference of references) {
    if (!(await exists(db, reference))) return reference.field;
  }
  return undefined;
}

async function exists(db: Kysely<Database>, reference: Reference): Promise<boolean> {
  if (reference.field === 'member') {
    const row = await db
      .selectFrom('oauth_members')
      .select('id')
      .where('id', '=', reference.id)
      .executeTakeFirst();
    return row !== undefined;
  }
  if (reference.field === 'workspace') {
    const row = await db
      .selectFrom('workspaces')
      .select('id')
      .where('id', '=', reference.id)
      .executeTakeFirst();
    return row !== undefined;
  }
  const table = reference.field === 'agent' ? 'agents' : 'connections';
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('workspace_id', '=', reference.workspaceId)
    .where('id', '=', reference.id)
    .executeTakeFirst();
  return row !== undefined;
}
