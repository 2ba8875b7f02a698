import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TOOL_NAME_PATTERN, toolName } from '../../../generators/compile/tool-name.ts';
import type { HttpMethod } from '../../../generators/openapi/operation-object.ts';

const cases: Array<
  [
    string,
    {
      given: { prefix: string; operationId?: string; method?: HttpMethod; path?: string };
      want: string;
    },
  ]
> = [
  [
    'PascalCase with an acronym',
    {
      given: { prefix: 'unikraft_', operationId: 'GetInstanceByUUID' },
      want: 'unikraft_get_instance_by_uuid',
    },
  ],
  [
    'kebab-case',
    {
      given: { prefix: 'coolify_', operationId: 'list-envs-by-application-uuid' },
      want: 'coolify_list_envs_by_application_uuid',
    },
  ],
  [
    'Controller_method',
    {
      given: { prefix: 'daytona_', operationId: 'ConfigController_getConfig' },
      want: 'daytona_config_controller_get_config',
    },
  ],
  [
    'digits stay with their word',
    { given: { prefix: 'x_', operationId: 'getV2Users' }, want: 'x_get_v2_users' },
  ],
  [
    'symbols are separators',
    {
      given: { prefix: 'x_', operationId: 'repos/get-content.raw' },
      want: 'x_repos_get_content_raw',
    },
  ],
  [
    'repeated separators never make `__` (the runtime reads it as <connection>__<tool>)',
    {
      given: { prefix: 'x_', operationId: 'bank__transfer--now__' },
      want: 'x_bank_transfer_now',
    },
  ],
  [
    'no operationId: method and path',
    {
      given: { prefix: 'x_', method: 'delete', path: '/v1/users/{userId}' },
      want: 'x_delete_v1_users_by_user_id',
    },
  ],
  [
    'too long: a readable start and a hash',
    {
      given: {
        prefix: 'x_',
        operationId: 'GetTheVeryLongNameOfAnOperationThatNobodyShouldEverWriteButSomeDocumentsDo',
      },
      want: `x_get_the_very_long_name_of_an_operation_that_nobody_sh_${sha256(
        'x_get_the_very_long_name_of_an_operation_that_nobody_should_ever_write_but_some_documents_do',
      ).slice(0, 8)}`,
    },
  ],
];

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

describe('toolName', () => {
  it.each(cases)('%s', (_, { given, want }) => {
    const name = toolName(given.prefix, {
      operationId: given.operationId,
      method: given.method ?? 'get',
      path: given.path ?? '/',
    });
    expect(name).toBe(want);
    expect(name).toMatch(/^[a-z0-9_]{1,64}$/);
    expect(name).toMatch(TOOL_NAME_PATTERN);
  });

  it('the compiled-name pattern refuses `__`', () => {
    expect(TOOL_NAME_PATTERN.test('coolify_list_applications')).toBe(true);
    expect(TOOL_NAME_PATTERN.test('bank__transfer')).toBe(false);
  });
});
