/** What the console's Connect your own MCP server routes answer (the gateway's `ConnectStep`). */

export type ConnectNext = 'review' | 'sign_in' | 'credential';

export interface ConnectStep {
  connection: string;
  status: string;
  next: ConnectNext;
  url: string;
  host: string;
  verified: boolean;
  label: string;
  curatedName?: string;
  authKind: string;
  headerNames: string[];
  signIn?: { host: string; issuer: string };
  found?: { tools: string[]; features: string[]; problems: string[] };
  server?: { name: string; version: string };
  tools?: Array<{ name: string; title?: string; description?: string }>;
}

export interface SignInLink {
  link: string;
  host: string;
  expiresAt: string;
  connection: string;
  label: string;
}

export interface PastedServer {
  name: string;
  url: string;
  host: string;
  headers: Array<{ header: string; placeholder?: string; given: boolean }>;
}

/** How the operator says the server authenticates (Advanced authentication). */
export type AuthChoice = 'none' | 'key' | 'headers' | 'browser';

export interface HeaderRow {
  name: string;
  value: string;
}
