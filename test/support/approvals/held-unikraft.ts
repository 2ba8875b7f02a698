/**
 * A gateway that holds Unikraft's destructive action for approval
 * (docs/approvals.md): Prism serving Unikraft's platform and sandbox APIs,
 * the Unikraft connection, agents granted all of it, and
 * `unikraft_delete_volumes` set to `ask` (`holdUnikraftAction` does the
 * last three on any admin API, replicas' too). Each held-calls test opens the
 * sides it needs (how long a request waits, how long an approval lives) and
 * states only what its calls do.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { adminClient, startTestGateway, type TestGateway } from '../gateway.ts';
import { type PrismServer, startPrism } from '../prism.ts';

/** The action every held-calls test asks for. */
export const HELD_ACTION = 'unikraft_delete_volumes';

/** Prism serving Unikraft's platform and sandbox APIs. */
interface UnikraftPrisms {
  platform: PrismServer;
  sandbox: PrismServer;
  stop(): Promise<void>;
}

async function startUnikraftPrisms(): Promise<UnikraftPrisms> {
  const [platform, sandbox] = await Promise.all([
    startPrism('unikraft', 'platform'),
    startPrism('unikraft', 'sandbox'),
  ]);
  return {
    platform,
    sandbox,
    stop: async () => {
      await Promise.all([platform.stop(), sandbox.stop()]);
    },
  };
}

export interface HeldSideOptions {
  /** The agents made and granted all of Unikraft, by name. */
  agents: readonly string[];
  /** More variables (`PORTCULLIS_APPROVAL_WAIT_MS`, `PORTCULLIS_APPROVAL_TTL_S`). */
  environment?: Record<string, string>;
}

/** A gateway holding `HELD_ACTION`, its admin API and its agents' keys. */
export interface HeldSide {
  gateway: TestGateway;
  admin: ReturnType<typeof adminClient>;
  keys: Record<string, string>;
}

async function openHeldSide(prisms: UnikraftPrisms, options: HeldSideOptions): Promise<HeldSide> {
  const gateway = await startTestGateway({
    upstreams: { unikraft: prisms.platform.url, 'unikraft/sandbox': prisms.sandbox.url },
    environment: options.environment ?? {},
  });
  const admin = adminClient(gateway.url, gateway.adminToken!);
  const keys = await holdUnikraftAction(admin, options.agents);
  return { gateway, admin, keys };
}

/** Gateways opened by `startHeldSides`, by name, on Prism of their own. */
export interface HeldSides<Name extends string> {
  sides: Record<Name, HeldSide>;
  /** Closes the gateways, then Prism. */
  close(): Promise<void>;
}

/** Prism, and a gateway holding `HELD_ACTION` for each of `specs` (opened at once). */
export async function startHeldSides<Name extends string>(
  specs: Record<Name, HeldSideOptions>,
): Promise<HeldSides<Name>> {
  const prisms = await startUnikraftPrisms();
  const names = Object.keys(specs) as Name[];
  const opened = await Promise.allSettled(names.map((name) => openHeldSide(prisms, specs[name])));
  const close = async () => {
    await Promise.all(
      opened.map((side) => (side.status === 'fulfilled' ? side.value.gateway.close() : undefined)),
    );
    await prisms.stop();
  };
  const failed = opened.find((side) => side.status === 'rejected');
  if (failed !== undefined) {
    await close();
    throw failed.reason;
  }
  const sides = {} as Record<Name, HeldSide>;
  names.forEach((name, i) => {
    sides[name] = (opened[i] as PromiseFulfilledResult<HeldSide>).value;
  });
  return { sides, close };
}

/** This file's sides of `specs`: opened before its tests (`beforeAll`), closed after them (`afterAll`). */
export function heldSidesForFile<Name extends string>(
  specs: Record<Name, HeldSideOptions>,
): Record<Name, HeldSide> {
  const sides = {} as Record<Name, HeldSide>;
  let held: HeldSides<Name> | undefined;
  beforeAll(async () => {
    held = await startHeldSides(specs);
    Object.assign(sides, held.sides);
  }, 120_000);
  afterAll(async () => {
    await held?.close();
  });
  return sides;
}

/**
 * Through the admin API behind `admin` (a gateway, or replicas behind
 * nginx): the Unikraft connection, `agents` granted all of it, and
 * `HELD_ACTION` set to `ask`; the agents' keys by name.
 */
export async function holdUnikraftAction(
  admin: ReturnType<typeof adminClient>,
  agents: readonly string[],
): Promise<Record<string, string>> {
  expect(
    (
      await admin('POST', '/workspaces/default/connections', {
        provider: 'unikraft',
        credential: 'ukc-test',
        settings: { metro: 'fra' },
      })
    ).status,
  ).toBe(201);
  const keys: Record<string, string> = {};
  for (const name of agents) {
    keys[name] = (await admin('POST', '/workspaces/default/agents', { name })).body.key as string;
    await admin('POST', '/workspaces/default/grants', {
      agent: name,
      connection: 'unikraft',
      scope: 'all',
    });
  }
  const asked = await admin('POST', '/workspaces/default/connections/unikraft/actions/ask', {
    actions: [HELD_ACTION],
  });
  expect(asked.status).toBe(200);
  expect(asked.body[0]).toMatchObject({ state: 'ask' });
  return keys;
}
