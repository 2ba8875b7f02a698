/**
 * The Client ID Metadata Document a public https deployment serves
 * unauthenticated (seed 000 tier 2): only its callback and the grant,
 * response and auth methods, under the deployment's own path; a loopback,
 * private-address or plain-http deployment has none, and its sign-ins never
 * present one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { publicWebClient } from '../../../support/upstream-oauth/oauth-peer.ts';

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe('GET /connect/oauth/client-metadata.json', () => {
  it('serves the document of a public https deployment, without a credential', async () => {
    gateway = await startTestGateway({
      environment: { PORTCULLIS_PUBLIC_URL: 'https://gateway.example.com' },
    });
    const reply = await fetch(`${gateway.url}/connect/oauth/client-metadata.json`, {
      headers: { host: 'gateway.example.com' },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await reply.json()).toEqual(
      publicWebClient(
        'https://gateway.example.com/connect/oauth/callback',
        'https://gateway.example.com/connect/oauth/client-metadata.json',
      ),
    );
  });

  it('names the addresses under the path of a deployment behind a proxy, as the sign-ins use them', async () => {
    gateway = await startTestGateway({
      environment: { PORTCULLIS_PUBLIC_URL: 'https://gateway.example.com/portcullis' },
    });
    const reply = await fetch(`${gateway.url}/connect/oauth/client-metadata.json`);
    const base = 'https://gateway.example.com/portcullis/connect/oauth';
    expect(await reply.json()).toEqual(
      publicWebClient(`${base}/callback`, `${base}/client-metadata.json`),
    );
    // What a sign-in presents as its client_id and redirect_uri is that document's.
    const signIn = gateway.running.gateway.upstreamSignIn;
    expect([signIn.clientMetadataUrl, signIn.redirectUri]).toEqual([
      `${base}/client-metadata.json`,
      `${base}/callback`,
    ]);
  });

  it.each([undefined, 'http://127.0.0.1:8080', 'https://localhost', 'https://10.1.2.3'])(
    'is not found, and no sign-in presents it, for the deployment %s',
    async (publicUrl) => {
      gateway = await startTestGateway({
        environment: publicUrl ? { PORTCULLIS_PUBLIC_URL: publicUrl } : {},
      });
      const reply = await fetch(`${gateway.url}/connect/oauth/client-metadata.json`);
      expect(reply.status).toBe(404);
      expect(gateway.running.gateway.upstreamSignIn.clientMetadataUrl).toBeUndefined();
    },
  );
});
