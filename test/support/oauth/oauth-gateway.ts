/**
 * A running gateway for the authorization server's tests: its own data
 * folder, a trivial local upstream behind the `unikraft` connection (it
 * answers every call with the path asked), and a test-only member. Agents
 * that consents create get grants through the same operator verbs an
 * operator would use.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { changeActions } from '../../../runtime/core/operator/actions.ts';
import { grant } from '../../../runtime/core/operator/grants.ts';
import { addMember } from '../../../runtime/core/operator/members.ts';
import {
  adminClient,
  startTestGateway,
  type TestGateway,
  type TestGatewayOptions,
} from '../gateway.ts';

export const MEMBER = { member: 'ada', password: 'correct horse battery staple' } as const;
/** A read the agents call, and a write that needs `tools:write`. */
export const READ_TOOL = 'unikraft_get_autoscale_configuration_policy_by_name';
export const READ_ARGS = { path: { uuid: '123e4567-e89b-12d3-a456-426614174000', name: 'p1' } };
export const WRITE_TOOL = 'unikraft_create_volume';
export const WRITE_ARGS = { body: { name: 'demo', size_mb: 64 } };

export interface OAuthGateway {
  gateway: TestGateway;
  url: string;
  /** The agents consent made, granted everything on `unikraft`. */
  grantConsentAgents(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startOAuthGateway(options: TestGatewayOptions = {}): Promise<OAuthGateway> {
  const upstream: Server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'success', path: req.url, method: req.method }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const gateway = await startTestGateway({ ...options, upstreams: { unikraft: origin } });
  const ctx = gateway.running.gateway.operator('cli');
  if (gateway.adminToken !== undefined) {
    const admin = adminClient(gateway.url, gateway.adminToken);
    await admin('POST', '/workspaces/default/connections', {
      provider: 'unikraft',
      credential: 'upstream-token',
    });
    await changeActions(ctx, 'enable', {
      workspace: 'default',
      connection: 'unikraft',
      actions: [WRITE_TOOL],
    });
    await addMember(ctx, { workspace: 'default', name: MEMBER.member, password: MEMBER.password });
  }
  return {
    gateway,
    url: gateway.url,
    async grantConsentAgents() {
      const store = gateway.running.gateway.store;
      const workspace = await store.workspaces.byName('default');
      const consents = await store.oauth.consents.list(workspace!.id);
      const names: string[] = [];
      for (const { agentId } of consents) {
        const agent = await store.agents.byId(workspace!.id, agentId);
        if (!agent || (await store.grants.forAgent(agentId)).length > 0) continue;
        await grant(ctx, {
          workspace: 'default',
          agent: agent.name,
          connection: 'unikraft',
          scope: 'all',
          actions: [],
          credential: 'shared',
        });
        names.push(agent.name);
      }
      return names;
    },
    async close() {
      await gateway.close();
      await new Promise((resolve) => upstream.close(resolve));
    },
  };
}
