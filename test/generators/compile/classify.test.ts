import { describe, expect, it } from 'vitest';
import type { Classification, ClassificationRule } from '../../../generators/catalog/format.ts';
import {
  type ClassificationOverride,
  classify,
  verbWordsOf,
} from '../../../generators/compile/classify.ts';
import type { HttpMethod, Operation } from '../../../generators/openapi/operation-object.ts';

function operation(method: HttpMethod, operationId?: string, summary?: string): Operation {
  return {
    pointer: '/paths/~1x/post',
    method,
    path: '/x',
    operationId,
    summary,
    description: undefined,
    deprecated: false,
    parameters: [],
    requestBody: undefined,
    security: [],
    extensions: {},
    refs: new Set(),
    droppedHeaders: [],
  };
}

type Case = [
  string,
  {
    given: {
      method: HttpMethod;
      operationId?: string;
      summary?: string;
      override?: ClassificationOverride;
    };
    want: [Classification, ClassificationRule];
  },
];

const cases: Case[] = [
  [
    'GET is a read',
    { given: { method: 'get', operationId: 'GetInstances' }, want: ['read', 'safe-method'] },
  ],
  ['HEAD is a read', { given: { method: 'head' }, want: ['read', 'safe-method'] }],
  [
    'a GET that mentions deletion is still a read',
    { given: { method: 'get', operationId: 'ListDeletedItems' }, want: ['read', 'safe-method'] },
  ],
  [
    'DELETE is destructive',
    {
      given: { method: 'delete', operationId: 'DeleteVolume' },
      want: ['destructive', 'delete-method'],
    },
  ],
  [
    'POST …/stop is destructive',
    {
      given: { method: 'put', operationId: 'StopInstanceByUUID' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'remove in kebab case',
    {
      given: { method: 'post', operationId: 'remove-application-destination' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'destroy',
    {
      given: { method: 'post', operationId: 'destroyCluster' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'suspend',
    {
      given: { method: 'post', operationId: 'SuspendService' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'detach',
    {
      given: { method: 'put', operationId: 'DetachVolumes' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'unpin',
    {
      given: { method: 'post', operationId: 'unpinMessage' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'terminate',
    {
      given: { method: 'post', operationId: 'TerminateSession' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'kill',
    {
      given: { method: 'post', operationId: 'KillProcess' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'revoke',
    {
      given: { method: 'post', operationId: 'revoke_token' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'a verb said only in the summary',
    {
      given: { method: 'post', operationId: 'Cleanup', summary: 'Deletes old builds' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'executes a command',
    {
      given: { method: 'post', operationId: 'ExecuteCommand' },
      want: ['destructive', 'executes-command'],
    },
  ],
  [
    'runs a command',
    {
      given: { method: 'post', operationId: 'RunCommand' },
      want: ['destructive', 'executes-command'],
    },
  ],
  [
    'runs code',
    {
      given: { method: 'post', operationId: 'CodeRun' },
      want: ['destructive', 'executes-command'],
    },
  ],
  [
    'sends a signal',
    {
      given: { method: 'post', operationId: 'SignalCommand' },
      want: ['destructive', 'executes-command'],
    },
  ],
  [
    'writes stdin',
    {
      given: { method: 'post', operationId: 'WriteCommandStdin' },
      want: ['destructive', 'executes-command'],
    },
  ],
  [
    'a word that only starts like a verb is not one',
    { given: { method: 'post', operationId: 'CreateStopwatch' }, want: ['write', 'default-write'] },
  ],
  [
    'create is a write',
    { given: { method: 'post', operationId: 'CreateInstance' }, want: ['write', 'default-write'] },
  ],
  [
    'PATCH is a write',
    { given: { method: 'patch', operationId: 'UpdateVolumes' }, want: ['write', 'default-write'] },
  ],
  [
    'a product name that ends in a capital is one word (SignalR is not "signal")',
    {
      given: { method: 'post', operationId: 'SignalR_ListKeys' },
      want: ['write', 'default-write'],
    },
  ],
  [
    'SignalR with a destructive verb after it is still destructive',
    {
      given: { method: 'post', operationId: 'SignalR_RemoveKeys' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    '"signal" as its own word still sends a signal',
    {
      given: { method: 'post', operationId: 'send_signal' },
      want: ['destructive', 'executes-command'],
    },
  ],
  [
    '"execution" is a noun, not a command',
    {
      given: { method: 'post', operationId: 'StartPipelineExecution' },
      want: ['write', 'default-write'],
    },
  ],
  [
    'a reading verb at the start wins over a noun later',
    {
      given: { method: 'post', operationId: 'DescribePipelineExecution' },
      want: ['write', 'default-write'],
    },
  ],
  [
    'list … execution steps reads',
    {
      given: { method: 'post', operationId: 'ListPipelineExecutionSteps' },
      want: ['write', 'default-write'],
    },
  ],
  [
    'a reading verb at the start wins over a destructive word later',
    {
      given: { method: 'post', operationId: 'ListDeletedItems' },
      want: ['write', 'default-write'],
    },
  ],
  [
    'the reading verb after an Azure Resource_ prefix counts as the start',
    {
      given: { method: 'post', operationId: 'Vaults_ListDeleted' },
      want: ['write', 'default-write'],
    },
  ],
  [
    'a stop of an execution is destructive',
    {
      given: { method: 'post', operationId: 'StopPipelineExecution' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'execute as a verb still runs something',
    {
      given: { method: 'post', operationId: 'ExecuteStatement' },
      want: ['destructive', 'executes-command'],
    },
  ],
  [
    'a reading verb in the middle does not excuse a destructive one at the start',
    {
      given: { method: 'post', operationId: 'DeleteAndListItems' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'a summary that starts with "Get" does not excuse an operationId that deletes',
    {
      given: { method: 'post', operationId: 'DeleteItems', summary: 'Get rid of the items' },
      want: ['destructive', 'destructive-word'],
    },
  ],
  [
    'a summary that starts with a reading verb reads, when the id says nothing',
    {
      given: { method: 'post', summary: 'Search the removed users' },
      want: ['write', 'default-write'],
    },
  ],
  [
    'a verb glued inside another word is not the verb (kill in skill)',
    { given: { method: 'post', operationId: 'UpdateSkillset' }, want: ['write', 'default-write'] },
  ],
  [
    'the definition overrides any rule',
    {
      given: {
        method: 'post',
        operationId: 'WaitForCommand',
        override: { classification: 'read', why: 'waits' },
      },
      want: ['read', 'definition'],
    },
  ],
  [
    'an override can make a read destructive',
    {
      given: {
        method: 'get',
        operationId: 'Reset',
        override: { classification: 'destructive', why: 'resets state' },
      },
      want: ['destructive', 'definition'],
    },
  ],
];

describe('verbWordsOf', () => {
  it.each([
    ['SignalR_ListKeys', ['signalr', 'list', 'keys']],
    ['getHTTPResponse', ['get', 'http', 'response']],
    ['describe-pipeline_execution', ['describe', 'pipeline', 'execution']],
    ['Run a command', ['run', 'a', 'command']],
    ['getV2Items', ['get', 'v2', 'items']],
  ])('%s', (given, want) => {
    expect(verbWordsOf(given)).toEqual(want);
  });
});

describe('classify', () => {
  it.each(cases)('%s', (_, { given, want }) => {
    const result = classify(
      operation(given.method, given.operationId, given.summary),
      given.override,
    );
    expect([result.classification, result.rule]).toEqual(want);
    expect(result.detail).not.toBe('');
  });
});
