/**
 * The lists of remote connections' prompts, resources and templates, and
 * what a handshake declares of them. A list asks every connection the
 * caller may read (the decision on reading its features, decision.ts) whose
 * server serves it, all its pages, and serves only what an operator
 * reviewed (pinned-features.ts): one audit event per connection's list, and
 * one more naming what it held back. A list with the shared credential that
 * shows what the pins do not know asks for the connection's discovery again.
 */

import { reasonOf } from '../base/errors.ts';
import type { Caller } from '../identity/principals/principals.ts';
import type { ListContext, ServedFeatures } from '../mcp/server/tool-backend.ts';
import { clientTakesApps } from '../mcp/wire/apps.ts';
import type { McpEra } from '../mcp/wire/protocol-version.ts';
import type { NewAuditEvent } from '../model/governance.ts';
import type { RemoteFeatureKind, RemoteFeatures } from '../model/remote.ts';
import { FEATURE_LISTS } from '../sources/remote-mcp/discover-features.ts';
import { featuresFor, featuresOf } from '../sources/remote-mcp/remote-features.ts';
import { type AllowedFeatures, readableConnections } from './decision.ts';
import { type FeatureView, requestContextOf } from './feature-names.ts';
import { type Forwarding, REMOTE_READ } from './named-request.ts';
import { servedList } from './pinned-features.ts';
import { servedAppOf } from './served-apps.ts';

/** A server's `ttlMs` on its list lowers ours (a negative or absent one says nothing). */
function lowerCache(context: ListContext, ttlMs: unknown): void {
  if (context.cache && typeof ttlMs === 'number' && Number.isInteger(ttlMs) && ttlMs >= 0)
    context.cache.ttlMs = Math.min(context.cache.ttlMs, ttlMs);
}

/** Whether one of the connection's tools is served with its app now. */
function servesApps(caller: Caller, { connection, source }: AllowedFeatures): boolean {
  return source.actions.some(
    (action) =>
      action.contract.ui !== undefined &&
      servedAppOf(caller.snapshot, { connection, source, action }) !== undefined,
  );
}

/** Connections whose features were learned here (not recorded) kept at most; past it, learned again. */
const MAX_LEARNED = 1_000;

/** Pages of one upstream list read at most (a server that pages forever is cut there). */
const MAX_PAGES = 20;

/** How often a list that shows what the pins do not know asks for the connection's discovery. */
const REDISCOVER_EVERY_MS = 10_000;

export interface FeatureListsOptions extends Forwarding {
  now: () => Date;
  /** A connection's lists showed what its pins do not know: discover it again. */
  unpinned?: (connectionId: string) => void;
}

export class FeatureLists {
  readonly #options: FeatureListsOptions;
  /** Features of connections recorded without them, as their servers said here (by connection id). */
  readonly #learned = new Map<string, RemoteFeatures>();
  readonly #learning = new Set<string>();
  /** When each connection last asked for its discovery again. */
  readonly #rediscovered = new Map<string, number>();

  constructor(options: FeatureListsOptions) {
    this.#options = options;
  }

  /**
   * Whether any connection the caller may read serves prompts, resources or
   * completions (what a handshake declares), from what each server said when
   * it was connected or last discovered: no handshake waits on a server. A
   * connection recorded before servers' features were is asked in the
   * background, and declared from the next handshake on.
   */
  served(caller: Caller, view: FeatureView, era?: McpEra): ServedFeatures {
    const served: ServedFeatures = { prompts: false, resources: false, completions: false };
    for (const readable of readableConnections(caller, view.only)) {
      if (!served.apps && servesApps(caller, readable)) served.apps = true;
      const recorded =
        readable.source.endpoint.features ?? this.#learned.get(readable.connection.id);
      if (recorded === undefined) {
        this.#learn(caller, readable);
        continue;
      }
      const features = featuresFor(recorded, era);
      if (features.prompts) served.prompts = true;
      if (features.resources) served.resources = true;
      if (features.completions) served.completions = true;
      if (features.subscribe) served.subscribe = true;
    }
    return served;
  }

  /** Every readable connection's list of `kind`, less what is held back. */
  async list(
    caller: Caller,
    view: FeatureView,
    context: ListContext,
    kind: RemoteFeatureKind,
  ): Promise<object[]> {
    const lists = await Promise.all(
      readableConnections(caller, view.only).map((readable) =>
        this.#listOf(caller, view, context, kind, readable),
      ),
    );
    return lists.flat();
  }

  /** One connection's list, all its pages, audited. */
  async #listOf(
    caller: Caller,
    view: FeatureView,
    listContext: ListContext,
    kind: RemoteFeatureKind,
    readable: AllowedFeatures,
  ): Promise<object[]> {
    const { remote, audit } = this.#options;
    const list = FEATURE_LISTS.find((candidate) => candidate.kind === kind)!;
    const capabilities = await remote.capabilitiesOf(caller, readable, listContext.era);
    if (capabilities?.[list.capability] === undefined) return [];
    const context = requestContextOf(listContext);
    const opening = {
      caller,
      action: list.method,
      trace: listContext.trace,
      span: listContext.span,
    };
    return audit.run(opening, async (audited) => {
      audited.allowed(readable.connection.id);
      const listed: unknown[] = [];
      let outcome: Partial<NewAuditEvent> = { decision: 'allowed', outcome: 'ok' };
      try {
        let cursor: string | undefined;
        for (let page = 0; page < MAX_PAGES; page++) {
          const params = cursor === undefined ? {} : { cursor };
          const forwarded = await audited.upstream(REMOTE_READ, (trace) =>
            remote.forward(caller, readable, context, list.method, params, trace),
          );
          const result = forwarded.outcome as Record<string, unknown>;
          lowerCache(listContext, result.ttlMs);
          const entries = result[list.member];
          if (Array.isArray(entries)) listed.push(...entries);
          cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
          if (cursor === undefined) break;
        }
      } catch (error) {
        // One server that cannot list leaves the others' lists whole.
        outcome = { decision: 'allowed', outcome: 'error', reason: reasonOf(error) };
      }
      const { connection, source } = readable;
      const served = servedList(
        caller.snapshot,
        connection,
        source,
        kind,
        listed,
        view.only === undefined,
        clientTakesApps(listContext.clientCapabilities),
      );
      await audited.finish(outcome).catch(audit.report);
      if (served.held.length > 0)
        await audited
          .also({
            decision: 'denied',
            reason: served.held[0]!.reason,
            subject: `held ${served.held.length}: ${served.held
              .map((item) => `${item.name} (${item.reason})`)
              .join(', ')}`.slice(0, 500),
          })
          .catch(audit.report);
      if (served.unpinned && readable.credentialOwner === null) this.rediscover(connection.id);
      return served.items;
    });
  }

  /** Asks a server with no recorded features what it serves, once at a time, for the handshakes after. */
  #learn(caller: Caller, readable: AllowedFeatures): void {
    const id = readable.connection.id;
    if (this.#learning.has(id) || readable.connection.health === 'error') return;
    this.#learning.add(id);
    void this.#options.remote.capabilitiesOf(caller, readable).then((capabilities) => {
      this.#learning.delete(id);
      if (capabilities === undefined) return;
      if (this.#learned.size >= MAX_LEARNED) this.#learned.clear();
      this.#learned.set(id, featuresOf(capabilities));
    });
  }

  /** Asks for the connection's discovery again, at most every REDISCOVER_EVERY_MS. */
  rediscover(connectionId: string): void {
    const now = this.#options.now().getTime();
    const last = this.#rediscovered.get(connectionId);
    if (last !== undefined && now - last < REDISCOVER_EVERY_MS) return;
    this.#rediscovered.set(connectionId, now);
    this.#options.unpinned?.(connectionId);
  }
}
