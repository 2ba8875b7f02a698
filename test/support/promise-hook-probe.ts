/**
 * Run as a child (`node --import tsx`): starts the OpenTelemetry SDK in this
 * process as `runtime/main.ts` does (the `OTEL_*` variables it is given),
 * then a real gateway, and makes governed tool calls through its MCP
 * endpoint to a loopback upstream. Prints one JSON line: whether Node's
 * promise hook was on afterwards (a promise's execution resource gets an
 * async id only while an AsyncLocalStorage or an async hook is enabled) and
 * the `traceparent` each call's upstream request carried.
 *
 * `PROBE_CONTROL=1` enters an AsyncLocalStorage first, to show the probe
 * sees one.
 */
import { AsyncLocalStorage, executionAsyncResource } from 'node:async_hooks';
import { startTracing } from '../../runtime/adapters/otel/tracing-sdk.ts';
import { adminClient, callTool, mcpClient, startTestGateway } from './gateway.ts';
import { startLoopbackServer } from './loopback-server.ts';

async function promiseHookOn(): Promise<boolean> {
  await null;
  return Object.getOwnPropertySymbols(executionAsyncResource()).length > 0;
}

const hookAtStart = await promiseHookOn();
if (process.env.PROBE_CONTROL === '1') new AsyncLocalStorage().enterWith({});
const tracing = await startTracing(process.env);
const traceparents: string[] = [];
const upstream = await startLoopbackServer({
  '/v1': (request, response) => {
    traceparents.push(String(request.headers.traceparent ?? ''));
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
  },
});
const gateway = await startTestGateway({ upstreams: { unikraft: upstream.url.origin } });
const admin = adminClient(gateway.url, gateway.adminToken!);
await admin('POST', '/workspaces/default/connections', { provider: 'unikraft', credential: 't' });
const key = (await admin('POST', '/workspaces/default/agents', { name: 'probe' })).body.key;
await admin('POST', '/workspaces/default/grants', { agent: 'probe', connection: 'unikraft' });
const client = await mcpClient(gateway.url, key);
// Only the calls' requests (adding the connection may try its credential upstream).
const before = traceparents.length;
for (let i = 0; i < 3; i++) {
  const reply = await callTool(client, 'unikraft_get_user');
  if (reply.isError) throw new Error(`call failed: ${JSON.stringify(reply.structuredContent)}`);
}
await client.close();
const hookAfterCalls = await promiseHookOn();
await gateway.close();
await upstream.close();
await tracing?.shutdown();
process.stdout.write(
  `${JSON.stringify({ hookAtStart, hookAfterCalls, traceparents: traceparents.slice(before) })}\n`,
);
process.exit(0);
