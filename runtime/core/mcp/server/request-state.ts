/**
 * The `requestState` this endpoint mints for a multi round-trip request
 * (2026-07-28 `basic/patterns/mrtr`): what a backend asked to get back with
 * the client's answers, signed with HMAC-SHA256 (the MCP SDK's
 * `createRequestStateCodec`), expiring, and bound to the principal, the method,
 * the tool and a hash of its arguments, so it cannot be replayed by another
 * caller or on another call. The client sees the payload but cannot change it.
 *
 * The keys are the gateway's own (derived from its master keys): every
 * replica can check a state another minted, and a state minted before a key
 * rotation still opens with the old key.
 */
import { hkdfSync } from 'node:crypto';
import {
  createRequestStateCodec,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { hashJson } from '../../../../generated/catalog-rules.ts';
import { GatewayError } from '../../base/errors.ts';
import type { JsonValue } from '../../base/json-value.ts';
import type { McpPrincipal } from './tool-backend.ts';

/** What a state is bound to: who asked, and for which call. */
export interface RequestStateBinding {
  principal: McpPrincipal;
  method: string;
  name: string;
  arguments: Record<string, unknown> | undefined;
}

export interface RequestStateSealerOptions {
  /** Secret keys, the one to mint with first; each at least 32 bytes. */
  keys: readonly Uint8Array[];
  /** How long a state stays valid. Default 10 minutes. */
  ttlSeconds?: number;
}

const DEFAULT_TTL_SECONDS = 600;

export class RequestStateSealer {
  readonly #codecs: RequestStateCodec<{ s: JsonValue }>[];

  constructor(options: RequestStateSealerOptions) {
    if (options.keys.length === 0) throw new TypeError('a request-state sealer needs a key');
    this.#codecs = options.keys.map((key) =>
      createRequestStateCodec<{ s: JsonValue }>({
        key,
        ttlSeconds: options.ttlSeconds ?? DEFAULT_TTL_SECONDS,
        // The codec hands back whatever context `mint` and `verify` were given: our binding.
        bind: (context) => bindingText(context as unknown as RequestStateBinding),
      }),
    );
  }

  /** A sealer whose keys are derived from master keys (HKDF-SHA256, a label of its own). */
  static fromMasterKeys(
    masterKeys: readonly Uint8Array[],
    ttlSeconds?: number,
  ): RequestStateSealer {
    const keys = masterKeys.map(
      (key) =>
        new Uint8Array(
          hkdfSync('sha256', key, new Uint8Array(0), 'portcullis mcp requestState', 32),
        ),
    );
    return new RequestStateSealer({ keys, ...(ttlSeconds === undefined ? {} : { ttlSeconds }) });
  }

  seal(state: JsonValue | undefined, binding: RequestStateBinding): Promise<string> {
    return this.#codecs[0]!.mint({ s: state ?? null }, asContext(binding));
  }

  /** The state, or `request_state_invalid` when it is forged, altered, expired or someone else's. */
  async open(sealed: string, binding: RequestStateBinding): Promise<JsonValue | undefined> {
    for (const codec of this.#codecs) {
      try {
        const payload = await codec.verify(sealed, asContext(binding));
        return payload.s ?? undefined;
      } catch {
        // Not this key, or not valid at all: the next key, then the refusal.
      }
    }
    throw new GatewayError('request_state_invalid', undefined, { field: 'params.requestState' });
  }
}

function asContext(binding: RequestStateBinding): ServerContext {
  return binding as unknown as ServerContext;
}

function bindingText({ principal, method, name, arguments: args }: RequestStateBinding): string {
  const argumentsHash = hashJson(args ?? {});
  return [principal.workspaceId, principal.agentId, method, name, argumentsHash].join('\n');
}
