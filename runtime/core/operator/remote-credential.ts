/**
 * A remote MCP connection's credential, set or rotated (shared, or an
 * agent's personal one): the key for a `bearer` connection, the values of its
 * header names for a `headers` one, both for a key with headers beside it.
 * Checked against the header rules, tried
 * on the server (a refusal blames the credential, nothing is written), then
 * sealed; the old credential's upstream session is ended, so the next call
 * opens one with the new credential.
 */
import { GatewayError } from '../base/errors.ts';
import type { Connection } from '../model/governance.ts';
import { probeEndpoint } from '../sources/remote-mcp/probe.ts';
import {
  assertBearerKeyAllowed,
  assertRemoteHeaders,
  BEARER_FIELD,
  headerField,
} from '../sources/remote-mcp/remote-headers.ts';
import { upstreamTarget } from '../sources/remote-mcp/upstream-targets.ts';
import { endpointOrThrow, remoteOrThrow } from './connection-lookup.ts';
import type { OperatorContext } from './context.ts';

/** The name a key beside custom headers is given under (`--credential-env Authorization=VAR`). */
const KEY_HEADER = 'Authorization';

/** The sealed fields of a remote connection's credential, checked and verified. */
export async function remoteCredentialFields(
  ctx: OperatorContext,
  connection: Connection,
  given: string | Record<string, string>,
): Promise<Record<string, string>> {
  const remote = remoteOrThrow(ctx);
  const endpoint = await endpointOrThrow(ctx, connection);
  let fields: Record<string, string>;
  if (endpoint.authKind === 'bearer' && endpoint.headerNames.length === 0) {
    if (typeof given !== 'string')
      throw new GatewayError('invalid_input', 'credential: this connection takes one key', {
        field: 'credential',
      });
    assertBearerKeyAllowed(given, 'credential');
    fields = { [BEARER_FIELD]: given };
  } else if (endpoint.authKind === 'bearer' || endpoint.authKind === 'headers') {
    // A key beside custom headers is given as one more header, `Authorization`.
    const withKey = endpoint.authKind === 'bearer';
    const expected = [...(withKey ? [KEY_HEADER] : []), ...endpoint.headerNames];
    const values = typeof given === 'string' ? {} : given;
    const missing = expected.find((name) => values[name] === undefined);
    const extra = Object.keys(values).find((name) => !expected.includes(name));
    if (missing !== undefined || extra !== undefined)
      throw new GatewayError(
        'invalid_input',
        `credential: give exactly the headers ${expected.join(', ')}`,
        { field: `credential.${missing ?? extra}` },
      );
    const { [KEY_HEADER]: key, ...headers } = values;
    assertRemoteHeaders(headers, 'credential');
    fields = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [headerField(name), value]),
    );
    if (withKey) fields[BEARER_FIELD] = key!.replace(/^Bearer\s+/i, '');
  } else {
    throw new GatewayError('invalid_input', `connection: ${connection.name} needs no credential`, {
      field: 'connection',
    });
  }
  // A refusal blames the credential (remote_credential_refused); nothing is written.
  const target = upstreamTarget(endpoint, fields);
  const probed = await probeEndpoint(remote.client, remote.http, target, {
    allowPrivateNetworks: remote.allowPrivateNetworks,
    withCredential: true,
  });
  // The probe's session ends here, as connect-url's does; calls open their own.
  if (probed.kind === 'ready')
    await remote.client.close(target, probed.hello.session).catch(() => {});
  return fields;
}
