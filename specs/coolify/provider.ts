import { defineProvider } from '../provider-definition.ts';

export default defineProvider({
  id: 'coolify',
  name: 'Coolify',
  description:
    'A self-hostable platform for applications, databases and services: deployments, servers, projects and their environments.',
  documentationUrl: 'https://coolify.io/docs/api-reference/authorization',
  documents: {
    api: {
      title: 'Coolify API',
      toolPrefix: 'coolify_',
      server: {
        url: 'https://{host}/api/v1',
        variables: {
          host: {
            description:
              'The Coolify instance: app.coolify.io, or a self-hosted one the operator sets.',
            setting: 'host',
            operatorOnly: true,
          },
        },
      },
    },
  },
  auth: {
    kind: 'bearer',
    fields: [
      {
        name: 'token',
        label: 'Coolify API token',
        secret: true,
        obtain: {
          text: 'In your Coolify dashboard: Keys & Tokens → API tokens → create a token (enable the API under Settings first if it is off).',
          url: 'https://coolify.io/docs/api-reference/authorization',
        },
      },
    ],
  },
  settings: {
    host: {
      description: 'The host name of the Coolify instance (Coolify Cloud or self-hosted).',
      type: 'string',
      default: 'app.coolify.io',
    },
  },
  verify: 'api:version',
});
