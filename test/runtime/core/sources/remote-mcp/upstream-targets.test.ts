/** Upstream targets: worked out once per endpoint and opened credential, afresh for a new one of either. */
import { describe, expect, it } from 'vitest';
import type { RemoteEndpoint } from '../../../../../runtime/core/model/remote.ts';
import {
  credentialIdentity,
  UpstreamTargets,
  upstreamTarget,
} from '../../../../../runtime/core/sources/remote-mcp/upstream-targets.ts';

const endpointOf = (url: string): RemoteEndpoint =>
  ({
    connectionId: 'conn_1',
    url,
    authKind: 'bearer',
    headerNames: [],
  }) as unknown as RemoteEndpoint;

/** Targets as the executor makes them, counting how often one is worked out. */
function counted() {
  const made = { count: 0 };
  const targets = new UpstreamTargets((endpoint, credential) => {
    made.count++;
    const target = upstreamTarget(endpoint, credential);
    return { target, identity: credentialIdentity(target.headers) };
  });
  return { targets, made };
}

describe('upstream targets', () => {
  it('work a target out once for the same endpoint and opened credential', () => {
    const { targets, made } = counted();
    const endpoint = endpointOf('http://127.0.0.1:1/mcp');
    const credential = { bearer: 'secret-one' };
    const first = targets.of(endpoint, credential);
    expect(targets.of(endpoint, credential)).toBe(first);
    expect(targets.of(endpoint, undefined)).toBe(targets.of(endpoint, undefined));
    expect(made.count).toBe(2);
    expect(first.target.headers.authorization).toBe('Bearer secret-one');
  });

  it('work it out afresh for a new credential or a new endpoint, never serving the old one', () => {
    const { targets } = counted();
    const endpoint = endpointOf('http://127.0.0.1:1/mcp');
    const before = targets.of(endpoint, { bearer: 'secret-one' });
    const after = targets.of(endpoint, { bearer: 'secret-two' });
    expect(after.target.headers.authorization).toBe('Bearer secret-two');
    expect(after.identity).not.toBe(before.identity);
    const moved = targets.of(endpointOf('http://127.0.0.1:2/mcp'), undefined);
    expect(moved.target.url.port).toBe('2');
  });

  it('keep nothing when working a target out fails', () => {
    let fail = true;
    const targets = new UpstreamTargets((endpoint, credential) => {
      if (fail) throw new Error('refused header');
      return { target: upstreamTarget(endpoint, credential), identity: 'id' };
    });
    const endpoint = endpointOf('http://127.0.0.1:1/mcp');
    const credential = { bearer: 'secret-one' };
    expect(() => targets.of(endpoint, credential)).toThrow('refused header');
    fail = false;
    expect(targets.of(endpoint, credential).identity).toBe('id');
  });
});
