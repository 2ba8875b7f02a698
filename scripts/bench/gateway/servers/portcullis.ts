/**
 * Portcullis with all governance on, as a benchmark child: a fresh data folder
 * (SQLite), the catalogs from the checkout, Unikraft's calls sent to the bench
 * upstream through the development override, one connection (its credential
 * verified and sealed in the vault), one agent with a grant, audit on; and a
 * member who signs in through the consent page for a registered client, whose
 * consent's agent gets the same grant. It announces its MCP URL, the agent
 * key, that client's access token and the tool to call.
 */
import { upstreamArgument } from './announce.ts';
import {
  BENCH_TOOL,
  benchAgent,
  environmentFor,
  startBenchPortcullis,
} from './bench-portcullis.ts';
import { signInAsMember } from './oauth-sign-in.ts';

const { running, announce } = await startBenchPortcullis(environmentFor(upstreamArgument()));
const key = await benchAgent(running);
const accessToken = await signInAsMember(running.gateway.operator('bench'), running.url);

announce({ url: `${running.url}/mcp`, agentKey: key, accessToken, toolName: BENCH_TOOL });
