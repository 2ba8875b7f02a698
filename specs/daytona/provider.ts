import { defineProvider } from '../provider-definition.ts';

export default defineProvider({
  id: 'daytona',
  name: 'Daytona',
  description:
    'Sandboxes for AI-generated code: the control-plane API (sandboxes, snapshots, volumes, organizations) and the in-sandbox toolbox (files, git, processes, computer use).',
  documentationUrl: 'https://www.daytona.io/docs/en/tools/api/',
  documents: {
    api: {
      title: 'Daytona API',
      toolPrefix: 'daytona_',
      // The document declares only http://localhost:3000; the hosted API lives here.
      server: { url: 'https://app.daytona.io/api', variables: {} },
    },
    toolbox: {
      title: 'Daytona Toolbox API',
      toolPrefix: 'daytona_toolbox_',
      server: {
        url: 'https://proxy.app.daytona.io/toolbox/{sandboxId}',
        variables: {
          sandboxId: {
            description: 'The id of the sandbox whose toolbox to call.',
            pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$',
          },
        },
      },
      // The toolbox declares no security, but the proxy requires the API key.
      credential: 'always',
    },
  },
  auth: {
    kind: 'bearer',
    fields: [
      {
        name: 'apiKey',
        label: 'Daytona API key',
        secret: true,
        obtain: {
          text: 'Daytona Dashboard → API Keys → Create Key, with the permissions the agents need.',
          url: 'https://app.daytona.io/dashboard/keys',
        },
      },
    ],
  },
  verify: 'api:getAuthenticatedUser',
  exclude: {
    'api:uploadFiles_deprecated':
      "deprecated; its multipart body is described as an array of {file, path} objects, which no multipart request can carry (the toolbox document's UploadFiles has no body at all); daytona_toolbox_upload_file uploads one file",
  },
});
