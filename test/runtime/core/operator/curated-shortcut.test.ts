/**
 * A pasted URL that a curated definition names gets the branded shortcut
 * beside the generic route: connect-url and import (core verbs, the admin API
 * and the command all answer with them) carry the definition's name,
 * description, documentation, sign-in hints and support text, listings label
 * the connection with the definition's name, and it is still the one generic
 * connection. A URL no definition names stays `unverified` with its host.
 * The upstream is a real SDK v2 server over https on loopback (a throwaway
 * self-signed certificate the gateway's guarded client is told to trust),
 * since a curated pattern is https only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteMcpManifest } from '../../../../generated/catalog-format.ts';
import { connectText } from '../../../../runtime/adapters/cli/remote-commands.ts';
import { CatalogSet } from '../../../../runtime/core/catalog/catalog-set.ts';
import { CuratedRemotes } from '../../../../runtime/core/catalog/curated-remotes.ts';
import { connectionViews } from '../../../../runtime/core/operator/connection-views.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { connectUrl } from '../../../../runtime/core/operator/remote-connections.ts';
import { importConfig } from '../../../../runtime/core/operator/remote-import.ts';
import { createGuardedClient } from '../../../../runtime/core/outbound/guarded-client.ts';
import { createRemoteMcp } from '../../../../runtime/core/sources/remote-mcp/remote-mcp.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { selfSignedLocalhost } from '../../../support/remote/self-signed.ts';
import { startUpstream, type Upstream } from '../../../support/remote/upstream-servers.ts';

const CANARY = 'canary-curated-5e6f7a8b9c';

let gateway: TestGateway;
let open: Upstream;
let keyed: Upstream;
let plain: Upstream;
let ctx: OperatorContext;

function definition(id: string, url: string): RemoteMcpManifest {
  return {
    $comment: 'test definition',
    format: 1,
    connection: {
      id,
      name: `Acme ${id}`,
      description: `Acme's hosted MCP server (${id}).`,
      documentationUrl: `https://docs.acme.example/${id}`,
      transport: 'remote_mcp',
      endpoints: [{ url, match: 'exact', transport: 'streamable-http' }],
      auth: [
        { kind: 'oauth', clientRegistration: 'dynamic' },
        {
          kind: 'headers',
          headers: [
            {
              name: 'X-Api-Key',
              label: 'Acme API key',
              secret: true,
              obtain: { text: 'Acme → Settings → Keys', url: 'https://acme.example/keys' },
            },
          ],
        },
      ],
      defaults: { connectionName: `acme-${id}`, enabledClasses: ['read'] },
      support: { text: 'Maintained by Acme.', url: 'https://acme.example/support' },
      definitionHash: '0'.repeat(64),
    },
    mcpServers: {},
  };
}

beforeAll(async () => {
  const tls = selfSignedLocalhost();
  [gateway, open, keyed, plain] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    startUpstream('modern', { tls }),
    startUpstream('stateful', { tls, requireHeader: { name: 'X-Api-Key', value: CANARY } }),
    startUpstream('modern'),
  ]);
  const base = gateway.running.gateway.operator('test');
  ctx = {
    ...base,
    catalogs: new CatalogSet(
      base.catalogs.providers,
      new CuratedRemotes([definition('open', open.url), definition('keyed', keyed.url)]),
    ),
    remote: createRemoteMcp(
      createGuardedClient({ allowPrivateNetworks: true, trustedCertificates: [tls.cert] }),
      { allowPrivateNetworks: true },
    ),
  };
});
afterAll(async () => {
  await ctx?.remote?.http.close();
  await Promise.all([gateway?.close(), open?.close(), keyed?.close(), plain?.close()]);
});

describe('the curated shortcut beside the generic route', () => {
  it('connect-url offers the matched definition, names the connection by its default, and makes one connection', async () => {
    const result = await connectUrl(ctx, { workspace: 'default', url: open.url });
    expect(result.next).toBe('review');
    expect(result.connection.name).toBe('acme-open');
    expect(result.curated).toEqual({
      id: 'open',
      name: 'Acme open',
      description: "Acme's hosted MCP server (open).",
      documentationUrl: 'https://docs.acme.example/open',
      endpoint: { url: open.url, match: 'exact', transport: 'streamable-http' },
      auth: definition('open', open.url).connection.auth,
      defaults: { connectionName: 'acme-open', enabledClasses: ['read'] },
      support: { text: 'Maintained by Acme.', url: 'https://acme.example/support' },
    });
    // Discovered and quarantined like any remote server's tools: no separate capability.
    const tools = await ctx.store.remoteTools.forConnection(result.connection.id);
    expect(tools.map((t) => t.name).sort()).toEqual(['count', 'delete_item', 'get_weather']);
    const policies = await ctx.store.policies.forConnection(result.connection.id);
    expect(new Set(policies.map((p) => p.state))).toEqual(new Set(['quarantined']));

    const views = await connectionViews(ctx, { workspace: 'default' });
    const same = views.filter((v) => v.remote?.url === open.url);
    expect(same.map((v) => v.name)).toEqual(['acme-open']);
    expect(same[0]!.provider).toBe(result.connection.provider);
    expect(same[0]!.remote).toMatchObject({
      verified: true,
      label: `curated: Acme open (${new URL(open.url).host})`,
      curated: {
        id: 'open',
        name: 'Acme open',
        documentationUrl: 'https://docs.acme.example/open',
      },
    });

    const text = connectText(result);
    expect(text).toContain(`acme-open: Acme open (curated) at ${new URL(open.url).host}`);
    expect(text).toContain(
      'Curated shortcut: Acme open (open), the same connection as the generic route',
    );
    expect(text).toContain("Acme's hosted MCP server (open).");
    expect(text).toContain('documentation: https://docs.acme.example/open');
    expect(text).toContain('sign-in: browser sign-in (OAuth, dynamic client registration)');
    expect(text).toContain(
      'sign-in: headers X-Api-Key (Acme API key: Acme → Settings → Keys (https://acme.example/keys); --header-env X-Api-Key=VAR)',
    );
    expect(text).toContain('support: Maintained by Acme. (https://acme.example/support)');
  });

  it('import offers it too, on the draft of a server that wants a key and again once the key is given', async () => {
    const snippet = { mcpServers: { acme: { url: keyed.url } } };
    const draft = await importConfig(ctx, { workspace: 'default', config: snippet });
    expect(draft.next).toBe('credential');
    expect(draft.curated?.id).toBe('keyed');
    expect(connectText(draft)).toContain('sign-in: headers X-Api-Key (Acme API key');

    const done = await importConfig(ctx, {
      workspace: 'default',
      config: { mcpServers: { acme: { url: keyed.url, headers: { 'X-Api-Key': '<KEY>' } } } },
      values: { 'X-Api-Key': CANARY },
    });
    expect(done.next).toBe('review');
    expect(done.connection.id).toBe(draft.connection.id);
    expect(done.curated?.id).toBe('keyed');
    expect(JSON.stringify(done)).not.toContain(CANARY);
    const views = await connectionViews(ctx, { workspace: 'default' });
    expect(views.filter((v) => v.remote?.url === keyed.url)).toHaveLength(1);
  });

  it('leaves a URL no definition names unverified, with its host', async () => {
    const result = await connectUrl(ctx, { workspace: 'default', url: plain.url, name: 'plain' });
    expect(result.curated).toBeUndefined();
    const text = connectText(result);
    expect(text).toContain(`plain: unverified server ${new URL(plain.url).host}`);
    expect(text).not.toContain('Curated shortcut');
    const views = await connectionViews(ctx, { workspace: 'default' });
    expect(views.find((v) => v.name === 'plain')?.remote).toMatchObject({
      verified: false,
      label: `unverified server: ${new URL(plain.url).host}`,
    });
    expect(views.find((v) => v.name === 'plain')?.remote?.curated).toBeUndefined();
  });
});
