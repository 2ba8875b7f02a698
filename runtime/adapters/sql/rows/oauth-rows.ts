import type { OAuthRows } from '../../../core/ports/store.ts';
import { clientRows } from './oauth-client-rows.ts';
import { consentRows } from './oauth-consent-rows.ts';
import { assertionJtiRows, machineClientRows } from './oauth-machine-client-rows.ts';
import { memberRows } from './oauth-member-rows.ts';
import { signingKeyRows } from './oauth-signing-key-rows.ts';
import { tokenRows } from './oauth-token-rows.ts';
import type { StoreContext } from './store-context.ts';

export function oauthRows(context: StoreContext): OAuthRows {
  return {
    members: memberRows(context),
    clients: clientRows(context),
    machineClients: machineClientRows(context),
    assertionJtis: assertionJtiRows(context),
    consents: consentRows(context),
    tokens: tokenRows(context),
    signingKeys: signingKeyRows(context),
  };
}
