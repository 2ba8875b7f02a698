/**
 * A header the gateway owns (framing, routing, credentials, the body's media
 * type) is never an action's argument: an optional one is left out of the
 * schema, and the action names it (`leftOutHeaders`); an operation that
 * requires one is inventoried, not advertised. The compiler and the runtime apply one rule.
 */
import { describe, expect, it } from 'vitest';
import { CATALOG_BODY_HEADER_NAMES } from '../../generated/catalog-rules.ts';
import { assertHeaderAllowed } from '../../runtime/core/outbound/header-rules.ts';
import { actionNamed, compileFixture, group } from '../support/fixtures.ts';

const compiled = compileFixture('gateway-owned-headers.yaml');

describe('header parameters the gateway owns', () => {
  it('inventories an operation that requires one instead of advertising it', () => {
    expect(compiled.actions.map((a) => a.name)).not.toContain('fx_concurrent_append');
    expect(compiled.inventory).toContainEqual(
      expect.objectContaining({
        reason: 'gateway_owned_header',
        method: 'PATCH',
        operationId: 'ConcurrentAppend',
        pointer: '/paths/~1files~1{path}/patch/parameters/0',
      }),
    );
  });

  it('leaves an optional one out of the arguments and says so on the action', () => {
    const read = actionNamed(compiled, 'fx_read_file');
    expect(Object.keys(group(read, 'header')?.properties ?? {})).toEqual(['x-ms-version']);
    expect(read.request.parameters.filter((p) => p.in === 'header').map((p) => p.name)).toEqual([
      'x-ms-version',
    ]);
    expect(read.leftOutHeaders).toEqual(['Connection', 'Sec-Fetch-Mode']);
    expect(compiled.inventory.map((e) => e.operationId)).toEqual(['ConcurrentAppend']);
  });

  it('advertises only headers the runtime lets an argument set', () => {
    for (const action of compiled.actions)
      for (const parameter of action.request.parameters.filter((p) => p.in === 'header'))
        expect(() =>
          assertHeaderAllowed(parameter.name, 'x', '/header', {
            alsoRefuse: CATALOG_BODY_HEADER_NAMES,
          }),
        ).not.toThrow();
  });
});
