import { describe, expect, it } from 'vitest';
import { createAjv } from '../../../../../runtime/core/base/create-ajv.ts';
import { GatewayError } from '../../../../../runtime/core/base/errors.ts';
import {
  type ActionArguments,
  buildRestRequest,
} from '../../../../../runtime/core/sources/native-rest/build-request.ts';
import { actionNamed, compileFixture } from '../../../../support/fixtures.ts';
import { realAction, schemaValid } from '../../../../support/rest-actions.ts';

const getUser = realAction('unikraft', 'unikraft_get_user');
const commandLogs = realAction('unikraft', 'unikraft_sandbox_get_command_logs');
const coolifyServers = realAction('coolify', 'coolify_export_server_transfer_bundle');
const COMMAND = '123e4567-e89b-12d3-a456-426614174000';

type Outcome = { href: string; host: string } | { code: string; field: string | undefined };

function outcome(build: () => { url: URL; host: string }): Outcome {
  try {
    const built = build();
    return { href: built.url.href, host: built.host };
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return { code: error.code, field: error.field };
  }
}

const refused = (field: string) => ({ code: 'server_variable_refused', field });

type Case = [
  string,
  {
    given: { args: ActionArguments; settings: Record<string, string>; validate?: boolean };
    want: Outcome;
  },
];

describe('server URL: Unikraft metros', () => {
  const cases: Case[] = [
    [
      'the connection default metro',
      {
        given: { args: {}, settings: { metro: 'sin' } },
        want: {
          href: 'https://api.sin.unikraft.cloud/v1/users/quotas',
          host: 'api.sin.unikraft.cloud',
        },
      },
    ],
    [
      'the definition default when the connection has none',
      {
        given: { args: {}, settings: {} },
        want: {
          href: 'https://api.fra.unikraft.cloud/v1/users/quotas',
          host: 'api.fra.unikraft.cloud',
        },
      },
    ],
    [
      'a per-call metro wins over the connection',
      {
        given: { args: { server: { metro: 'dal' } }, settings: { metro: 'sin' } },
        want: {
          href: 'https://api.dal.unikraft.cloud/v1/users/quotas',
          host: 'api.dal.unikraft.cloud',
        },
      },
    ],
    [
      'an unpublished metro per call',
      {
        given: { args: { server: { metro: 'ams' } }, settings: {}, validate: false },
        want: refused('/server/metro'),
      },
    ],
    [
      'an unpublished metro from the connection',
      { given: { args: {}, settings: { metro: 'ams' } }, want: refused('/server/metro') },
    ],
    [
      'a metro that adds a host',
      { given: { args: {}, settings: { metro: 'fra.evil.test' } }, want: refused('/server/metro') },
    ],
    [
      'a metro with a path',
      { given: { args: {}, settings: { metro: 'fra/x' } }, want: refused('/server/metro') },
    ],
    [
      'a metro with userinfo',
      { given: { args: {}, settings: { metro: 'x@evil.test' } }, want: refused('/server/metro') },
    ],
    [
      'a metro with a port',
      { given: { args: {}, settings: { metro: 'fra:8443' } }, want: refused('/server/metro') },
    ],
    [
      'a metro with a query',
      { given: { args: {}, settings: { metro: 'fra?' } }, want: refused('/server/metro') },
    ],
    [
      'a metro with a fragment',
      { given: { args: {}, settings: { metro: 'fra#' } }, want: refused('/server/metro') },
    ],
    [
      'a metro with a percent escape',
      { given: { args: {}, settings: { metro: 'fr%61' } }, want: refused('/server/metro') },
    ],
    [
      'a metro with whitespace',
      { given: { args: {}, settings: { metro: 'fra ' } }, want: refused('/server/metro') },
    ],
    [
      'an empty metro',
      { given: { args: {}, settings: { metro: '' } }, want: refused('/server/metro') },
    ],
    [
      'a metro that is not text',
      {
        given: { args: { server: { metro: 7 } }, settings: {}, validate: false },
        want: refused('/server/metro'),
      },
    ],
    [
      'a variable the action does not have',
      {
        given: { args: { server: { region: 'eu' } }, settings: {}, validate: false },
        want: refused('/server/region'),
      },
    ],
  ];

  it.each(cases)('%s', (_name, { given, want }) => {
    const args =
      given.validate === false ? given.args : schemaValid('unikraft', getUser, given.args);
    expect(outcome(() => buildRestRequest(getUser, args, { settings: given.settings }))).toEqual(
      want,
    );
  });
});

describe('server URL: the sandbox plugin instance', () => {
  const logs = (server: Record<string, unknown>): ActionArguments => ({
    server,
    path: { uuid: COMMAND },
  });
  const cases: Case[] = [
    [
      'an instance by name',
      {
        given: { args: logs({ instance: 'my-app.v2' }), settings: { metro: 'was' } },
        want: {
          href: `https://api.was.unikraft.cloud/v1/instances/my-app.v2/plugins/sandbox/commands/${COMMAND}/logs`,
          host: 'api.was.unikraft.cloud',
        },
      },
    ],
    [
      'no instance',
      {
        given: { args: logs({}), settings: {}, validate: false },
        want: refused('/server/instance'),
      },
    ],
    [
      'an instance that does not match the pattern',
      {
        given: { args: logs({ instance: '-x' }), settings: {}, validate: false },
        want: refused('/server/instance'),
      },
    ],
    [
      'an instance whose name holds .. (one segment, no step)',
      {
        given: { args: logs({ instance: 'a..b' }), settings: {} },
        want: {
          href: `https://api.fra.unikraft.cloud/v1/instances/a..b/plugins/sandbox/commands/${COMMAND}/logs`,
          host: 'api.fra.unikraft.cloud',
        },
      },
    ],
    [
      'an instance that is ..',
      {
        given: { args: logs({ instance: '..' }), settings: {}, validate: false },
        want: refused('/server/instance'),
      },
    ],
    [
      'an instance that is an encoded ..',
      {
        given: { args: logs({ instance: '%2e%2E' }), settings: {}, validate: false },
        want: refused('/server/instance'),
      },
    ],
    [
      'an instance holding a slash',
      {
        given: { args: logs({ instance: 'a/../b' }), settings: {}, validate: false },
        want: refused('/server/instance'),
      },
    ],
  ];

  it.each(cases)('%s', (_name, { given, want }) => {
    const args =
      given.validate === false ? given.args : schemaValid('unikraft', commandLogs, given.args);
    expect(
      outcome(() => buildRestRequest(commandLogs, args, { settings: given.settings })),
    ).toEqual(want);
  });
});

describe('server URL: an operator-only host (Coolify)', () => {
  const exportBundle = (server?: Record<string, unknown>): ActionArguments => ({
    ...(server ? { server } : {}),
    path: { uuid: 'srv1' },
  });
  const cases: Case[] = [
    [
      'the hosted default',
      {
        given: { args: exportBundle(), settings: {} },
        want: { href: 'https://app.coolify.io/api/v1/servers/srv1/export', host: 'app.coolify.io' },
      },
    ],
    [
      'a self-hosted instance from the connection',
      {
        given: { args: exportBundle(), settings: { host: 'coolify.example.com' } },
        want: {
          href: 'https://coolify.example.com/api/v1/servers/srv1/export',
          host: 'coolify.example.com',
        },
      },
    ],
    [
      'a host the call tries to set',
      {
        given: { args: exportBundle({ host: 'evil.test' }), settings: {}, validate: false },
        want: refused('/server/host'),
      },
    ],
    [
      'a setting with a port',
      {
        given: { args: exportBundle(), settings: { host: 'coolify.example.com:8000' } },
        want: refused('/server/host'),
      },
    ],
    [
      'a setting with a path',
      {
        given: { args: exportBundle(), settings: { host: 'evil.test/x' } },
        want: refused('/server/host'),
      },
    ],
    [
      'a setting with userinfo',
      {
        given: { args: exportBundle(), settings: { host: 'app.coolify.io@evil.test' } },
        want: refused('/server/host'),
      },
    ],
    [
      'a setting with a backslash',
      {
        given: { args: exportBundle(), settings: { host: 'evil.test\\x' } },
        want: refused('/server/host'),
      },
    ],
  ];

  it.each(cases)('%s', (_name, { given, want }) => {
    const args =
      given.validate === false ? given.args : schemaValid('coolify', coolifyServers, given.args);
    expect(
      outcome(() => buildRestRequest(coolifyServers, args, { settings: given.settings })),
    ).toEqual(want);
  });
});

/** The arguments, after the fixture action's own input schema accepts them (when asked). */
function fixtureValid(
  compiled: ReturnType<typeof compileFixture>,
  action: ReturnType<typeof actionNamed>,
  args: ActionArguments,
): ActionArguments {
  const validate = createAjv([...compiled.annotationFormats]).compile(action.inputSchema);
  if (!validate(args))
    throw new Error(`test arguments fail the schema: ${JSON.stringify(validate.errors)}`);
  return args;
}

describe('server URL: a base path in a server variable (the eBay shape)', () => {
  const compiled = compileFixture('base-path-variable.yaml');
  const privileges = actionNamed(compiled, 'fx_get_privileges');
  const base = (basePath: string): ActionArguments => ({ server: { basePath } });
  const cases: Case[] = [
    [
      "the document's default",
      {
        given: { args: {}, settings: {} },
        want: {
          href: 'https://api.shop.example.test/sell/account/v1/privilege',
          host: 'api.shop.example.test',
        },
      },
    ],
    [
      'another base path from the call',
      {
        given: { args: base('/sell/finances/v1'), settings: {} },
        want: {
          href: 'https://api.shop.example.test/sell/finances/v1/privilege',
          host: 'api.shop.example.test',
        },
      },
    ],
    [
      'an empty base path',
      {
        given: { args: base(''), settings: {} },
        want: { href: 'https://api.shop.example.test/privilege', host: 'api.shop.example.test' },
      },
    ],
    [
      'a base path with an @ and a colon (path characters)',
      {
        given: { args: base('/u/@me:x'), settings: {} },
        want: {
          href: 'https://api.shop.example.test/u/@me:x/privilege',
          host: 'api.shop.example.test',
        },
      },
    ],
    [
      'a value that would extend the host',
      {
        given: { args: base('.evil.test'), settings: {}, validate: false },
        want: refused('/server/basePath'),
      },
    ],
    [
      'a value that would add userinfo',
      {
        given: { args: base('@evil.test/x'), settings: {}, validate: false },
        want: refused('/server/basePath'),
      },
    ],
    [
      'a value that would add a port',
      {
        given: { args: base(':8443/x'), settings: {}, validate: false },
        want: refused('/server/basePath'),
      },
    ],
    [
      'a dot dot step',
      { given: { args: base('/sell/../admin'), settings: {} }, want: refused('/server/basePath') },
    ],
    [
      'a trailing dot dot step',
      { given: { args: base('/sell/..'), settings: {} }, want: refused('/server/basePath') },
    ],
    [
      'an encoded dot dot step',
      {
        given: { args: base('/sell/%2e%2e/admin'), settings: {} },
        want: refused('/server/basePath'),
      },
    ],
    [
      'a double-encoded step',
      {
        given: { args: base('/%252e%252e/admin'), settings: {} },
        want: refused('/server/basePath'),
      },
    ],
    [
      'a step hidden by a path parameter (Tomcat)',
      {
        given: { args: base('/sell/..;x/admin'), settings: {} },
        want: refused('/server/basePath'),
      },
    ],
    [
      'a fullwidth step',
      {
        given: { args: base('/\uff0e\uff0e/admin'), settings: {} },
        want: refused('/server/basePath'),
      },
    ],
    [
      'a query',
      {
        given: { args: base('/a?b=1'), settings: {}, validate: false },
        want: refused('/server/basePath'),
      },
    ],
    [
      'a fragment',
      {
        given: { args: base('/a#b'), settings: {}, validate: false },
        want: refused('/server/basePath'),
      },
    ],
    [
      'a backslash',
      {
        given: { args: base('/a\\..'), settings: {}, validate: false },
        want: refused('/server/basePath'),
      },
    ],
    [
      'a space',
      {
        given: { args: base('/a b'), settings: {}, validate: false },
        want: refused('/server/basePath'),
      },
    ],
    [
      'a NUL',
      {
        given: { args: base('/a\u0000'), settings: {}, validate: false },
        want: refused('/server/basePath'),
      },
    ],
  ];

  it.each(cases)('%s', (_name, { given, want }) => {
    const args =
      given.validate === false ? given.args : fixtureValid(compiled, privileges, given.args);
    expect(outcome(() => buildRestRequest(privileges, args, { settings: given.settings }))).toEqual(
      want,
    );
  });

  it('a path parameter after the base path', () => {
    const remove = actionNamed(compiled, 'fx_delete_payment_policy');
    const built = buildRestRequest(
      remove,
      { path: { payment_policy_id: 'p/1' } },
      { settings: {} },
    );
    expect(built.url.href).toBe(
      'https://api.shop.example.test/sell/account/v1/payment_policy/p%2F1',
    );
  });
});

describe('server URL: variables inside the path (a base path after a slash, a token in a segment)', () => {
  const compiled = compileFixture('path-server-variables.yaml');
  const getMe = actionNamed(compiled, 'fx_get_me');
  const cases: Case[] = [
    [
      'the defaults: a colon in the token, a doubled slash',
      {
        given: { args: {}, settings: {} },
        want: {
          href: 'https://eu.chat.example.test//api/v1.0/bot123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11/getMe',
          host: 'eu.chat.example.test',
        },
      },
    ],
    [
      'a token that is a step once decoded',
      {
        given: { args: { server: { token: '/%2e%2e' } }, settings: {} },
        want: refused('/server/token'),
      },
    ],
    [
      'a base path after the slash that steps back',
      {
        given: { args: { server: { basePath: '/api/..' } }, settings: {} },
        want: refused('/server/basePath'),
      },
    ],
    [
      'a tenant not on the list',
      {
        given: { args: { server: { tenant: 'evil' } }, settings: {}, validate: false },
        want: refused('/server/tenant'),
      },
    ],
  ];

  it.each(cases)('%s', (_name, { given, want }) => {
    const args = given.validate === false ? given.args : fixtureValid(compiled, getMe, given.args);
    expect(outcome(() => buildRestRequest(getMe, args, { settings: given.settings }))).toEqual(
      want,
    );
  });
});
