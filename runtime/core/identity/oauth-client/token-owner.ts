/** Whose credential a call to a signed-in (`oauth`) connection carries. */
export interface TokenOwner {
  workspaceId: string;
  connectionId: string;
  connectionName: string;
  /** null: the connection's shared credential. */
  agentId: string | null;
}
