import { describe, expect, it } from 'vitest';
import type { CatalogAction } from '../../../../generated/catalog-format.ts';
import { syncPolicies } from '../../../../runtime/core/governance/contract-sync.ts';
import type { ActionPolicy } from '../../../../runtime/core/model/governance.ts';

const connection = { id: 'c1', workspaceId: 'w1' };
const act = (name: string, classification: CatalogAction['classification'], contractHash: string) =>
  ({ name, classification, contractHash }) as CatalogAction;
const row = (
  action: string,
  state: ActionPolicy['state'],
  reviewedHash: string | null,
  currentHash: string,
): ActionPolicy => ({
  connectionId: 'c1',
  workspaceId: 'w1',
  action,
  classification: 'read',
  state,
  reviewedHash,
  currentHash,
  updatedAt: 'then',
});

describe('syncPolicies', () => {
  it('gives a new connection the defaults: reads on, writes and destructive off, all reviewed', () => {
    const sync = syncPolicies(
      connection,
      [act('r', 'read', 'h1'), act('w', 'write', 'h2'), act('d', 'destructive', 'h3')],
      [],
      'now',
      'defaults',
    );
    expect(sync.changed.map((p) => [p.action, p.state, p.reviewedHash])).toEqual([
      ['r', 'enabled', 'h1'],
      ['w', 'disabled', 'h2'],
      ['d', 'disabled', 'h3'],
    ]);
  });

  it('quarantines an action new to an existing connection, unreviewed', () => {
    const sync = syncPolicies(
      connection,
      [act('r', 'read', 'h1'), act('n', 'read', 'h4')],
      [row('r', 'enabled', 'h1', 'h1')],
      'now',
      'quarantine-new',
    );
    expect(sync.added).toEqual(['n']);
    expect(sync.changed).toEqual([
      expect.objectContaining({ action: 'n', state: 'quarantined', reviewedHash: null }),
    ]);
  });

  it('keeps the state of a changed contract but records the new hash, leaving the reviewed one', () => {
    const sync = syncPolicies(
      connection,
      [act('r', 'read', 'h2')],
      [row('r', 'enabled', 'h1', 'h1')],
      'now',
      'quarantine-new',
    );
    expect(sync.changedContracts).toEqual(['r']);
    expect(sync.changed).toEqual([
      expect.objectContaining({ state: 'enabled', reviewedHash: 'h1', currentHash: 'h2' }),
    ]);
  });

  it('quarantines an action reclassified as riskier, so a review leaves it at its new default', () => {
    const sync = syncPolicies(
      connection,
      [act('r', 'destructive', 'h2')],
      [row('r', 'enabled', 'h1', 'h1')],
      'now',
      'quarantine-new',
    );
    // The reviewed hash stays, so listings call it changed rather than new.
    expect(sync.changed).toEqual([
      expect.objectContaining({
        classification: 'destructive',
        state: 'quarantined',
        reviewedHash: 'h1',
      }),
    ]);
  });

  it('retires an action that left the catalog, and quarantines it when it comes back', () => {
    const gone = syncPolicies(
      connection,
      [],
      [row('r', 'enabled', 'h1', 'h1')],
      'now',
      'quarantine-new',
    );
    expect(gone.retired).toEqual(['r']);
    expect(gone.changed).toEqual([expect.objectContaining({ state: 'retired' })]);
    const back = syncPolicies(
      connection,
      [act('r', 'read', 'h1')],
      gone.changed,
      'later',
      'quarantine-new',
    );
    expect(back.changed).toEqual([
      expect.objectContaining({ state: 'quarantined', reviewedHash: null }),
    ]);
  });

  it('changes nothing when the catalog is the one already loaded', () => {
    const sync = syncPolicies(
      connection,
      [act('r', 'read', 'h1')],
      [row('r', 'disabled', 'h1', 'h1')],
      'now',
      'quarantine-new',
    );
    expect(sync.changed).toEqual([]);
  });
});
