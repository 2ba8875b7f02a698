import { defineRemote } from '../remote-definition.ts';

export default defineRemote({
  id: 'linear',
  name: 'Linear',
  description: "Linear's hosted MCP server: find, create and update issues, projects and comments.",
  documentationUrl: 'https://linear.app/docs/mcp',
  endpoints: [
    { url: 'https://mcp.linear.app/mcp', match: 'exact' },
    { url: 'https://mcp.linear.app/sse', match: 'exact', transport: 'sse' },
  ],
  auth: [{ kind: 'oauth', clientRegistration: 'dynamic' }],
  defaults: { enabledClasses: ['read'] },
  support: {
    text: 'Hosted and maintained by Linear; sign-in acts with the Linear permissions of the person who signs in. The SSE address is the older transport: prefer /mcp.',
    url: 'https://linear.app/contact/support',
  },
});
