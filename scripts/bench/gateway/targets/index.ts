/**
 * Every configuration, in the order of the report: HTTP baselines, MCP ceiling,
 * others, ours; then the forwarding ones, in front of the lean upstream MCP server.
 */
import { leanReference, nodeReverseProxy, sdkMinimal, upstreamDirect } from './bundled.ts';
import { mcpDirect, mcpReverseProxy } from './forwarding.ts';
import { ivotobyOpenapiMcpServer } from './ivotoby-openapi-mcp-server.ts';
import { mcpHub } from './mcp-hub.ts';
import { openapiMcpGenerator } from './openapi-mcp-generator.ts';
import {
  portcullis,
  portcullisBase,
  portcullisModern,
  portcullisModernBase,
  portcullisOAuth,
} from './portcullis.ts';
import { portcullisForwarding, portcullisForwardingBase } from './portcullis-forwarding.ts';
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
  portcullisBase,
  portcullisModernBase,
  mcpDirect,
  mcpReverseProxy,
  mcpHub,
  portcullisForwarding,
  portcullisForwardingBase,
];
