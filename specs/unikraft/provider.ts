import { defineProvider } from '../provider-definition.ts';

const metros = ['fra', 'dal', 'sin', 'was', 'sfo'];
const metro = {
  description: 'The Unikraft Cloud metro to call: fra, dal, sin, was or sfo.',
  enum: metros,
  setting: 'metro',
};

export default defineProvider({
  id: 'unikraft',
  name: 'Unikraft Cloud',
  description:
    'Unikernel micro-VMs, services and volumes across regional metros, and a sandbox plugin for commands and files inside an instance.',
  documentationUrl: 'https://unikraft.com/docs/api/platform',
  documents: {
    platform: {
      title: 'Unikraft Cloud Platform API',
      toolPrefix: 'unikraft_',
      server: { url: 'https://api.{metro}.unikraft.cloud', variables: { metro } },
    },
    sandbox: {
      title: 'Unikraft Cloud Sandbox Plugin API',
      toolPrefix: 'unikraft_sandbox_',
      server: {
        url: 'https://api.{metro}.unikraft.cloud/v1/instances/{instance}/plugins/sandbox',
        variables: {
          metro,
          instance: {
            description: 'The UUID or name of the instance running the sandbox.',
            pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$',
          },
        },
      },
      credential: 'always',
    },
  },
  auth: {
    kind: 'bearer',
    fields: [
      {
        name: 'token',
        label: 'Unikraft Cloud API token',
        secret: true,
        obtain: {
          text: 'Unikraft Cloud gives your organization an API token at on-boarding (the token the kraft CLI reads as UKC_TOKEN). It acts for the whole organization in every metro.',
          url: 'https://unikraft.com/docs/api/platform',
        },
      },
    ],
  },
  settings: {
    metro: {
      description: 'The metro used when a call does not name one.',
      type: 'string',
      enum: metros,
      default: 'fra',
    },
  },
  verify: 'platform:GetUser',
  classification: {
    'sandbox:WaitForCommand': {
      classification: 'read',
      why: 'waits for a command to finish; changes nothing',
    },
    'sandbox:WaitForCommandWithTimeout': {
      classification: 'read',
      why: 'waits for a command to finish; changes nothing',
    },
    'sandbox:ReadFile': { classification: 'read', why: 'reads a file; POST only carries the path' },
    'sandbox:ReadRawFile': {
      classification: 'read',
      why: 'reads a file; POST only carries the path',
    },
  },
  hints: {
    'sandbox:WaitForCommandWithTimeout': {
      stillRunningStatuses: [408],
      why: 'the documented 408 means the command is still running when the timeout elapses',
    },
  },
});
