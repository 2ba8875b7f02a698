import { defineRemote } from '../remote-definition.ts';

export default defineRemote({
  id: 'sentry',
  name: 'Sentry',
  description:
    "Sentry's hosted MCP server: issues and errors, projects and organizations, DSNs, and Seer's issue fixes.",
  documentationUrl: 'https://docs.sentry.io/product/sentry-mcp/',
  endpoints: [
    // `/mcp` and the organization- and project-scoped paths below it.
    { url: 'https://mcp.sentry.dev/mcp', match: 'prefix' },
  ],
  auth: [{ kind: 'oauth', clientRegistration: 'dynamic' }],
  defaults: { enabledClasses: ['read'] },
  support: {
    text: 'Hosted and maintained by Sentry; sign-in goes through your Sentry organization. After joining a new organization, sign in again to see it.',
    url: 'https://github.com/getsentry/sentry-mcp/issues',
  },
});
