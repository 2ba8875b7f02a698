/**
 * The MCP endpoint mounted in an Express app (the tests' fixture servers);
 * the gateway itself answers `/mcp` from `node:http` (`withMcpEndpoint`,
 * mcp-route.ts), with the same reading and answering.
 */
import express, { type Router } from 'express';
import type { McpEndpoint } from '../../core/mcp/server/mcp-endpoint.ts';
import { DEFAULT_BODY_LIMIT, type McpRouteOptions, serveMcp } from './mcp-route.ts';

/** An Express router answering `path` (any method) with the endpoint. */
export function mcpRouter(endpoint: McpEndpoint, options: McpRouteOptions = {}): Router {
  const router = express.Router();
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  router.all(options.path ?? '/mcp', (req, res, next) => {
    serveMcp(endpoint, req, res, bodyLimit).catch((error: unknown) => {
      options.onInternalError?.(error);
      next(error);
    });
  });
  return router;
}
