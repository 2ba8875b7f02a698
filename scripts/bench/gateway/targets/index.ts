/** Every configuration, in the order of the report: HTTP baselines, MCP ceiling, others, ours. */
import { leanReference, nodeReverseProxy, sdkMinimal, upstreamDirect } from './bundled.ts';
import { ivotobyOpenapiMcpServer } from './ivotoby-openapi-mcp-server.ts';
import { openapiMcpGenerator } from './openapi-mcp-generator.ts';
import { portcullis, portcullisModern, portcullisOAuth } from './portcullis.ts';
import type { GatewayTarget } from './target.ts';

export const TARGETS: GatewayTarget[] = [
  upstreamDirect,
  nodeReverseProxy,
  leanReference,
  sdkMinimal,
  ivotobyOpenapiMcpServer,
  openapiMcpGenerator,
  portcullis,
  portcullisModern,
  portcullisOAuth,
];
