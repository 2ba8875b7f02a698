/** The vault's errors: a closed set of codes, never the secret or the key in a message. */
export type VaultErrorCode =
  | 'vault_key_unknown'
  | 'vault_secret_malformed'
  | 'vault_secret_unauthentic';

export class VaultError extends Error {
  override readonly name = 'VaultError';
  readonly code: VaultErrorCode;

  constructor(code: VaultErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
