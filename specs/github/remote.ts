import { defineRemote } from '../remote-definition.ts';

export default defineRemote({
  id: 'github',
  name: 'GitHub',
  description:
    "GitHub's hosted MCP server: repositories and code, issues and pull requests, Actions runs and security alerts.",
  documentationUrl:
    'https://docs.github.com/en/copilot/how-tos/provide-context/use-mcp/set-up-the-github-mcp-server',
  endpoints: [
    // `/mcp/` and the toolset paths below it (`/mcp/readonly`, `/mcp/x/issues`, …).
    { url: 'https://api.githubcopilot.com/mcp', match: 'prefix' },
  ],
  auth: [
    { kind: 'oauth' },
    {
      kind: 'bearer',
      label: 'GitHub personal access token',
      obtain: {
        text: 'GitHub → Settings → Developer settings → Personal access tokens: a fine-grained token with the repositories and permissions the agents need.',
        url: 'https://github.com/settings/personal-access-tokens/new',
      },
    },
  ],
  defaults: { enabledClasses: ['read'] },
  support: {
    text: "Hosted and maintained by GitHub. Which tools answer depends on the token's scopes and the organization's MCP and personal access token policies.",
    url: 'https://github.com/github/github-mcp-server',
  },
});
