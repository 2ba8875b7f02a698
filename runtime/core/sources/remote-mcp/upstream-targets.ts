/**
 * Where one remote endpoint's calls go with one opened credential, worked
 * out once: the parsed URL, the credential's headers (checked), their
 * redactor and the credential identity that names the upstream session.
 * `GovernedTools` hands every call of a governance revision the same opened
 * credential object, so a call looks its target up here instead of parsing
 * the URL, checking the headers and hashing them again. A new revision or a
 * new credential is a new object, and its target is worked out afresh; the
 * old ones go with their objects. The caller's workspace redactor (one per
 * revision) is part of the key: a target redacts what its caller's
 * workspace holds.
 */

import { createHash } from 'node:crypto';
import type { UpstreamTarget } from '../../mcp/client/upstream-target.ts';
import type { RemoteEndpoint } from '../../model/remote.ts';
import { Redactor } from '../../outbound/redaction.ts';
import { credentialHeaders } from './remote-headers.ts';

export interface ResolvedTarget {
  target: UpstreamTarget;
  /** A hash of the credential headers, never their values (see `credentialIdentity`). */
  identity: string;
}

type Resolve = (
  endpoint: RemoteEndpoint,
  credential: Record<string, string> | undefined,
  secrets: Redactor | undefined,
) => ResolvedTarget;

/** The targets of one endpoint under one workspace redactor (or none). */
interface EndpointTargets {
  /** The target of calls that carry no credential. */
  none: ResolvedTarget | undefined;
  byCredential: WeakMap<Record<string, string>, ResolvedTarget>;
}

/** Calls whose caller's workspace redactor is unknown (an operator's). */
const NO_WORKSPACE = {};

export class UpstreamTargets {
  readonly #resolve: Resolve;
  readonly #byEndpoint = new WeakMap<RemoteEndpoint, WeakMap<object, EndpointTargets>>();

  /** `resolve`: how a target is worked out the first time (it may throw: nothing is kept then). */
  constructor(resolve: Resolve) {
    this.#resolve = resolve;
  }

  /** `secrets`: the caller's workspace's redactor (a new one, each revision, is a new target). */
  of(
    endpoint: RemoteEndpoint,
    credential: Record<string, string> | undefined,
    secrets?: Redactor,
  ): ResolvedTarget {
    let bySecrets = this.#byEndpoint.get(endpoint);
    if (bySecrets === undefined) {
      bySecrets = new WeakMap();
      this.#byEndpoint.set(endpoint, bySecrets);
    }
    let targets = bySecrets.get(secrets ?? NO_WORKSPACE);
    if (targets === undefined) {
      targets = { none: undefined, byCredential: new WeakMap() };
      bySecrets.set(secrets ?? NO_WORKSPACE, targets);
    }
    if (credential === undefined) {
      targets.none ??= this.#resolve(endpoint, undefined, secrets);
      return targets.none;
    }
    let resolved = targets.byCredential.get(credential);
    if (resolved === undefined) {
      resolved = this.#resolve(endpoint, credential, secrets);
      targets.byCredential.set(credential, resolved);
    }
    return resolved;
  }
}

/** A target and its identity, worked out from the endpoint and the credential. */
export function resolveTarget(
  endpoint: RemoteEndpoint,
  credential: Record<string, string> | undefined,
  secrets?: Redactor,
): ResolvedTarget {
  const target = upstreamTarget(endpoint, credential, secrets);
  return { target, identity: credentialIdentity(target.headers) };
}

/**
 * The upstream address with the credential's headers, checked as they go
 * out; what comes back is redacted of the credential, and of `secrets` (the
 * caller's workspace's) when given.
 */
export function upstreamTarget(
  endpoint: RemoteEndpoint,
  credential: Record<string, string> | undefined,
  secrets?: Redactor,
): UpstreamTarget {
  const headers = credentialHeaders(credential, endpoint.headerNames);
  return {
    url: new URL(endpoint.url),
    headers,
    redactor: new Redactor(Object.values(credential ?? {}), secrets),
  };
}

/** Who the upstream sees: a hash of the credential headers (the same credential, the same session). */
export function credentialIdentity(headers: Record<string, string>): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(headers).sort()) hash.update(`${name}\0${headers[name]}\0`);
  return hash.digest('hex').slice(0, 32);
}
