/**
 * A gateway started with the wrong master key cannot open the credentials it
 * stored: a call fails with `vault_unavailable` and nothing more for the
 * agent, the operator's log says what happened, and the credential never
 * appears in either.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLog } from '../../../../runtime/compose/log.ts';
import {
  adminClient,
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../support/gateway.ts';
import { type PrismServer, startPrism } from '../../../support/prism.ts';

const SECRET = `vault-canary-${randomBytes(8).toString('hex')}`;
let prism: PrismServer | undefined;
let gateway: TestGateway | undefined;

afterAll(async () => {
  await gateway?.close();
  await prism?.stop();
});

describe('a wrong master key', () => {
  it('fails the call with vault_unavailable and logs the cause for the operator, never the secret', async () => {
    prism = await startPrism('unikraft', 'platform');
    const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-vault-'));
    const first = {
      dataDir,
      upstreams: { unikraft: prism.url },
      masterKey: randomBytes(32).toString('base64'),
    };
    gateway = await startTestGateway(first);
    const adminToken = gateway.adminToken!;
    const admin = adminClient(gateway.url, adminToken);
    await admin('POST', '/workspaces/default/connections', {
      provider: 'unikraft',
      credential: SECRET,
    });
    const { key } = (await admin('POST', '/workspaces/default/agents', { name: 'a' })).body;
    await admin('POST', '/workspaces/default/grants', { agent: 'a', connection: 'unikraft' });
    await gateway.close();

    const logged: string[] = [];
    const log = createLog({ destination: { write: (line: string) => logged.push(line) } });
    gateway = await startTestGateway({
      ...first,
      masterKey: randomBytes(32).toString('base64'),
      log,
    });
    const client = await mcpClient(gateway.url, key);
    const result = await callTool(client, 'unikraft_get_user');
    await client.close();
    expect(result.structuredContent?.error).toEqual({
      code: 'vault_unavailable',
      message: 'internal error',
    });
    const text = logged.join('');
    expect(text).toContain('internal error answering /mcp');
    expect(text).toContain('vault_key_unknown');
    expect(text).not.toContain(SECRET);
  });
});
