/**
 * The call a client-auth scenario's client makes through the gateway: an
 * SDK client on `/mcp` with `credential` (an agent key or a member's access
 * token) calls the first tool of `connection`, so the gateway has to reach
 * the scenario's server with the upstream credential under test. Throws
 * when there is no such tool or the call fails; the tool's name otherwise.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export async function callConnectionTool(
  gatewayUrl: string,
  credential: string,
  connection: string,
): Promise<string> {
  const mcp = new Client({ name: 'portcullis-conformance', version: '0.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${credential}` } },
    }),
  );
  try {
    const { tools } = await mcp.listTools();
    const tool = tools.find((t) => t.name.startsWith(`${connection}__`));
    if (!tool) throw new Error('the connection has no tool to call');
    const reply = await mcp.callTool({ name: tool.name, arguments: {} });
    if (reply.isError) throw new Error(`${tool.name} failed: ${JSON.stringify(reply.content)}`);
    return tool.name;
  } finally {
    await mcp.close();
  }
}
