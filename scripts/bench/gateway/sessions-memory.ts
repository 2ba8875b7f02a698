/**
 * Resident memory of Portcullis holding many live upstream sessions (the
 * issue's target: under 300 MB with 1,000). The lean upstream MCP server runs
 * 2025 only, so every credential gets an upstream session of its own; a
 * Portcullis child connects it and sets up `count` agents with personal
 * credentials (../servers/portcullis-sessions.ts); each agent then makes one
 * `tools/call` on the 2026-07-28 wire (no session on the agent's side, its
 * connection closed after), which opens that agent's upstream session. The
 * upstream says how many sessions it holds open; Portcullis's resident memory
 * is read from /proc before the calls (the agents set up) and after.
 */
import { bundledServer } from './bundle-servers.ts';
import { describe, McpClient } from './load/mcp-client.ts';
import {
  type ResidentMemory,
  residentMemory,
  startPortcullisChild,
  startServerChild,
} from './server-child.ts';

export const SESSIONS_TARGET_MB = 300;

export interface SessionsMemory {
  agents: number;
  okCalls: number;
  firstError: string | undefined;
  /** Sessions the upstream holds open once every agent called. */
  upstreamSessions: number | undefined;
  beforeCalls: ResidentMemory | undefined;
  held: ResidentMemory | undefined;
  setupSeconds: number;
}

export async function measureSessionsMemory(count: number): Promise<SessionsMemory> {
  const upstream = await startServerChild({
    name: 'mcp-upstream-2025',
    command: process.execPath,
    args: [bundledServer('mcp-upstream')],
    env: { MCP_UPSTREAM_LEGACY_ONLY: '1' },
    ready: { kind: 'announce' },
  });
  try {
    const started = performance.now();
    const portcullis = await startPortcullisChild(
      'portcullis-sessions',
      bundledServer('portcullis-sessions'),
      [upstream.url!, String(count)],
      { timeoutMs: 600_000 },
    );
    try {
      const setupSeconds = (performance.now() - started) / 1000;
      const { url, agentKeys, toolName } = portcullis.announced as {
        url: string;
        agentKeys: string[];
        toolName: string;
      };
      const beforeCalls = residentMemory(portcullis.pid);
      let okCalls = 0;
      let firstError: string | undefined;
      const callAs = async (key: string) => {
        const client = new McpClient(url, { authorization: `Bearer ${key}` }, 1, 'modern');
        try {
          const reply = await client.request(await client.open(), 'tools/call', {
            name: toolName,
            arguments: {},
          });
          if (reply.result && reply.result.isError !== true) okCalls++;
          else firstError ??= describe(reply);
        } catch (error) {
          firstError ??= (error as Error).message;
        } finally {
          await client.destroy();
        }
      };
      for (let start = 0; start < agentKeys.length; start += 16)
        await Promise.all(agentKeys.slice(start, start + 16).map(callAs));
      const stats = await fetch(new URL('/stats', upstream.url!)).then(
        (r) => r.json() as Promise<{ sessions: number }>,
      );
      // A moment for the collector to settle after the burst.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return {
        agents: agentKeys.length,
        okCalls,
        firstError,
        upstreamSessions: stats.sessions,
        beforeCalls,
        held: residentMemory(portcullis.pid),
        setupSeconds,
      };
    } finally {
      await portcullis.close();
    }
  } finally {
    await upstream.close();
  }
}

export function formatSessionsMemory(m: SessionsMemory): string {
  const mb = (value: number | undefined) => (value === undefined ? '—' : `${Math.round(value)} MB`);
  const held = m.held?.rssMb;
  const verdict =
    held === undefined
      ? 'not measured'
      : held < SESSIONS_TARGET_MB
        ? `met (under ${SESSIONS_TARGET_MB} MB)`
        : `NOT met (target under ${SESSIONS_TARGET_MB} MB)`;
  return [
    `Portcullis with ${m.upstreamSessions ?? '?'} live upstream sessions (${m.agents} agents with personal credentials, ${m.okCalls} OK calls; a 2025-only upstream):`,
    `- RSS ${mb(held)} (peak ${mb(m.held?.peakMb)}), ${mb(m.beforeCalls?.rssMb)} before the calls: ${verdict}`,
    `- setup (connect, ${m.agents} agents, grants and credentials) ${m.setupSeconds.toFixed(0)} s${m.firstError ? `; first error: ${m.firstError.slice(0, 200)}` : ''}`,
  ].join('\n');
}
