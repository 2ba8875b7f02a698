/**
 * Where one remote endpoint's calls go with one opened credential, worked
 * out once: the parsed URL, the credential's headers (checked), their
 * redactor and the credential identity that names the upstream session.
 * `GovernedTools` hands every call of a governance revision the same opened
 * credential object, so a call looks its target up here instead of parsing
 * the URL, checking the headers and hashing them again. A new revision or a
 * new credential is a new object, and its target is worked out afresh; the
 * old ones go with their objects.
 */
import type { RemoteEndpoint } from './remote-model.ts';
import type { UpstreamTarget } from './upstream-client.ts';

export interface ResolvedTarget {
  target: UpstreamTarget;
  /** A hash of the credential headers, never their values (see `credentialIdentity`). */
  identity: string;
}

type Resolve = (
  endpoint: RemoteEndpoint,
  credential: Record<string, string> | undefined,
) => ResolvedTarget;

interface EndpointTargets {
  /** The target of calls that carry no credential. */
  none: ResolvedTarget | undefined;
  byCredential: WeakMap<Record<string, string>, ResolvedTarget>;
}

export class UpstreamTargets {
  readonly #resolve: Resolve;
  readonly #byEndpoint = new WeakMap<RemoteEndpoint, EndpointTargets>();

  /** `resolve`: how a target is worked out the first time (it may throw: nothing is kept then). */
  constructor(resolve: Resolve) {
    this.#resolve = resolve;
  }

  of(endpoint: RemoteEndpoint, credential: Record<string, string> | undefined): ResolvedTarget {
    let targets = this.#byEndpoint.get(endpoint);
    if (targets === undefined) {
      targets = { none: undefined, byCredential: new WeakMap() };
      this.#byEndpoint.set(endpoint, targets);
    }
    if (credential === undefined) {
      targets.none ??= this.#resolve(endpoint, undefined);
      return targets.none;
    }
    let resolved = targets.byCredential.get(credential);
    if (resolved === undefined) {
      resolved = this.#resolve(endpoint, credential);
      targets.byCredential.set(credential, resolved);
    }
    return resolved;
  }
}
