/** The one tool of the lean upstream MCP server (./mcp-upstream.ts), as it lists it. */
export const UPSTREAM_TOOL = {
  name: 'get_user_quotas',
  title: "The user's quotas",
  description: "Read the user's quotas",
  inputSchema: { type: 'object', properties: {} },
  // Read-only: a governed gateway classifies it a read, which a `reads` grant covers.
  annotations: { readOnlyHint: true },
};
