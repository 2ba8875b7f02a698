/** The hosts a catalog's allowlist names, from its server templates and the places of their variables. */
import { describe, expect, it } from 'vitest';
import type { Catalog, ServerTemplate } from '../../../generators/catalog/format.ts';
import { serverHosts } from '../../../generators/compile/server-hosts.ts';

type Case = [string, { given: ServerTemplate; want: Catalog['hosts'] }];
const fixed = (...hosts: string[]) => ({ fixed: hosts, settings: [] });

const cases: Case[] = [
  [
    'a host variable over its enum',
    {
      given: {
        url: 'https://api.{metro}.example.test',
        variables: { metro: { enum: ['fra', 'dal'], default: 'fra', operatorOnly: false } },
      },
      want: fixed('api.dal.example.test', 'api.fra.example.test'),
    },
  ],
  [
    "a base path right after the host (eBay's shape)",
    {
      given: {
        url: 'https://api.shop.example.test{basePath}',
        variables: { basePath: { default: '/sell/account/v1', operatorOnly: false } },
      },
      want: fixed('api.shop.example.test'),
    },
  ],
  [
    'a host variable and a base path',
    {
      given: {
        url: 'https://{tenant}.example.test{basePath}',
        variables: {
          tenant: { enum: ['eu', 'us'], operatorOnly: false },
          basePath: { default: '/v1', operatorOnly: false },
        },
      },
      want: fixed('eu.example.test', 'us.example.test'),
    },
  ],
  [
    'variables in the path',
    {
      given: {
        url: 'https://chat.example.test/{basePath}/bot{token}',
        variables: {
          basePath: { default: '/api', operatorOnly: false },
          token: { default: '1:a', operatorOnly: false },
        },
      },
      want: fixed('chat.example.test'),
    },
  ],
  [
    'an operator-set host',
    {
      given: {
        url: 'https://{host}/api/v1',
        variables: { host: { setting: 'host', default: 'app.example.test', operatorOnly: true } },
      },
      want: { fixed: [], settings: ['host'] },
    },
  ],
  [
    'a host variable with no values: no host at all',
    {
      given: {
        url: 'https://{tenant}.example.test',
        variables: { tenant: { default: 'acme', operatorOnly: false } },
      },
      want: fixed(),
    },
  ],
  [
    'a variable after the host whose default does not start with /: in the host, unbounded',
    {
      given: {
        url: 'https://api.example.test{suffix}',
        variables: { suffix: { default: '.eu', operatorOnly: false } },
      },
      want: fixed(),
    },
  ],
];

describe('serverHosts', () => {
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(serverHosts([given])).toEqual(want);
  });
});
