/**
 * `portcullis audit verify [--since t]` and `portcullis audit head`: the
 * stored audit log's hash chain checked (issue 33), and its newest link.
 * Each chained event's hash is recomputed from the event as stored and its
 * previous hash; that previous hash must be the chain's start or the hash of
 * an event stored before it (a journal chains on from the store's newest
 * event, so replicas' chains may fork from one event, never from a missing
 * one). The first event that fails is named, with why. Events with no hash
 * (stored before migration 0018, or by a build that chained only the journal) are
 * not checked, only counted apart, never reported as a break. With `since`, only the
 * events at or after it are checked (their links into earlier events looked
 * up in the store); with `head` (a hash `audit head` exported earlier),
 * that event must still be in the chain: what catches the newest events
 * removed. `since` is a time or a duration back from now (`7d`).
 */
import { CHAIN_GENESIS, canonicalAuditEvent, chainHash } from '../governance/audit-chain.ts';
import { instantOf } from './audit-query.ts';
import type { OperatorContext } from './context.ts';

export interface AuditChainBreak {
  /** The event that breaks the chain; 0 when `head` is not in it. */
  id: number;
  /**
   * `hash`: the event is not what was hashed; `link`: the event before it is gone or
   * changed; `head`: the head given (one exported earlier) is no event's.
   */
  problem: 'hash' | 'link' | 'head';
}

export interface AuditChainReport {
  checked: number;
  /** Events with no hash (stored before migration 0018, or by a build that chained only the journal): not checked. */
  unchained: number;
  head: { id: number; hash: string } | undefined;
  firstBreak: AuditChainBreak | undefined;
}

const PAGE = 2_000;

export async function verifyAuditChain(
  ctx: Pick<OperatorContext, 'store' | 'now'>,
  input: { since?: string | undefined; head?: string | undefined },
): Promise<AuditChainReport> {
  const since = input.since === undefined ? undefined : instantOf(ctx, input.since, 'since');
  const seen = new Set<string>([CHAIN_GENESIS]);
  /** Links to hashes not seen in the window: looked up in the store at the end. */
  const unknown: Array<{ id: number; prevHash: string }> = [];
  let checked = 0;
  let unchained = 0;
  let head: AuditChainReport['head'];
  let firstBreak: AuditChainBreak | undefined;
  let firstId: number | undefined;
  let afterId = 0;
  for (;;) {
    const page = await ctx.store.audit.chain({ afterId, limit: PAGE });
    if (page.length === 0) break;
    afterId = page.at(-1)!.id;
    for (const link of page) {
      if (since !== undefined && link.event.at < since) continue;
      if (link.hash === null || link.prevHash === null) {
        unchained++;
        continue;
      }
      firstId ??= link.id;
      checked++;
      head = { id: link.id, hash: link.hash };
      if (firstBreak !== undefined) continue;
      if (chainHash(link.prevHash, canonicalAuditEvent(link.event)) !== link.hash) {
        firstBreak = { id: link.id, problem: 'hash' };
        continue;
      }
      if (!seen.has(link.prevHash)) unknown.push({ id: link.id, prevHash: link.prevHash });
      seen.add(link.hash);
    }
  }
  if (firstBreak === undefined && input.head !== undefined && !seen.has(input.head))
    firstBreak = { id: 0, problem: 'head' };
  if (unknown.length > 0 && firstId !== undefined) {
    const stored = await ctx.store.audit.storedHashes(
      unknown.map((u) => u.prevHash),
      firstId,
    );
    const missing = unknown.find((u) => !stored.has(u.prevHash));
    if (missing !== undefined && (firstBreak === undefined || missing.id < firstBreak.id))
      firstBreak = { id: missing.id, problem: 'link' };
  }
  return { checked, unchained, head, firstBreak };
}

/** The newest chained event's id and hash: what an operator writes down to check the log later. */
export async function auditChainHead(
  ctx: Pick<OperatorContext, 'store'>,
): Promise<{ id: number; hash: string } | undefined> {
  return ctx.store.audit.head();
}
