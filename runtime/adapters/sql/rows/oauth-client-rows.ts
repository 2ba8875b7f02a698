import { STEP_UP_FORMS, type StepUpForm } from '../../../core/model/oauth.ts';
import type { ClientRows } from '../../../core/ports/store.ts';
import type { StoreContext } from './store-context.ts';

export function clientRows(context: StoreContext): ClientRows {
  const { db } = context;
  return {
    async create(client) {
      await db
        .insertInto('oauth_clients')
        .values({
          id: client.id,
          name: client.name,
          redirect_uris: JSON.stringify(client.redirectUris),
          created_at: client.createdAt,
          step_up: client.stepUp ?? null,
        })
        .execute();
    },

    async setStepUp(id, stepUp) {
      const { numUpdatedRows } = await context.mutate((trx) =>
        trx
          .updateTable('oauth_clients')
          .set({ step_up: stepUp ?? null })
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      return numUpdatedRows > 0n;
    },

    async byId(id) {
      const row = await db
        .selectFrom('oauth_clients')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return (
        row && {
          id: row.id,
          name: row.name,
          redirectUris: JSON.parse(row.redirect_uris) as string[],
          createdAt: row.created_at,
          ...(isStepUpForm(row.step_up) ? { stepUp: row.step_up } : {}),
        }
      );
    },

    async prune({ unapprovedBefore, unusedBefore, now }) {
      const result = await db
        .deleteFrom('oauth_clients')
        .where((eb) => {
          const { and, or, not, exists, selectFrom } = eb;
          const consents = () =>
            selectFrom('oauth_consents')
              .select('oauth_consents.id')
              .whereRef('oauth_consents.client_id', '=', 'oauth_clients.id');
          return and([
            not(exists(consents().where('oauth_consents.status', '=', 'active'))),
            not(
              exists(
                selectFrom('oauth_token_families')
                  .select('oauth_token_families.id')
                  .whereRef('oauth_token_families.client_id', '=', 'oauth_clients.id')
                  .where('oauth_token_families.status', '=', 'active')
                  .where('oauth_token_families.expires_at', '>', now),
              ),
            ),
            or([
              // Registered, never approved by anyone, for longer than a sign-in takes.
              and([eb('oauth_clients.created_at', '<', unapprovedBefore), not(exists(consents()))]),
              // Every consent revoked, and none changed (nor the client made) for a long time.
              and([
                eb('oauth_clients.created_at', '<', unusedBefore),
                not(
                  exists(
                    consents().where((where) =>
                      where.or([
                        where('oauth_consents.updated_at', '>=', unusedBefore),
                        where('oauth_consents.revoked_at', '>=', unusedBefore),
                      ]),
                    ),
                  ),
                ),
              ]),
            ]),
          ]);
        })
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

function isStepUpForm(value: string | null): value is StepUpForm {
  return (STEP_UP_FORMS as readonly (string | null)[]).includes(value);
}
