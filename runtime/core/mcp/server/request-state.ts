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
import type { RequestStateCodec, ServerContext } from '@modelcontextprotocol/server';
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
  readonly #keys: readonly Uint8Array[];
  readonly #ttlSeconds: number;
  /**
   * The SDK's codecs, one a key, made at the first seal or open: the SDK's
   * module (and the schemas it builds as it loads) is loaded then, not at start.
   */
  #codecs: Promise<RequestStateCodec<{ s: JsonValue }>[]> | undefined;

  constructor(options: RequestStateSealerOptions) {
    if (options.keys.length === 0) throw new TypeError('a request-state sealer needs a key');
    if (options.keys.some((key) => key.byteLength < 32))
      throw new RangeError('a request-state key must be at least 32 bytes');
    this.#keys = options.keys;
    this.#ttlSeconds = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
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

  async seal(state: JsonValue | undefined, binding: RequestStateBinding): Promise<string> {
    const [codec] = await this.#codecsOnce();
    return codec!.mint({ s: state ?? null }, asContext(binding));
  }

  /** The state, or `request_state_invalid` when it is forged, altered, expired or someone else's. */
  async open(sealed: string, binding: RequestStateBinding): Promise<JsonValue | undefined> {
    for (const codec of await this.#codecsOnce()) {
      try {
        const payload = await codec.verify(sealed, asContext(binding));
        return payload.s ?? undefined;
      } catch {
        // Not this key, or not valid at all: the next key, then the refusal.
      }
    }
    throw new GatewayError('request_state_invalid', undefined, { field: 'params.requestState' });
  }

  #codecsOnce(): Promise<RequestStateCodec<{ s: JsonValue }>[]> {
    this.#codecs ??= import('@modelcontextprotocol/server').then(({ createRequestStateCodec }) =>
      this.#keys.map((key) =>
        createRequestStateCodec<{ s: JsonValue }>({
          key,
          ttlSeconds: this.#ttlSeconds,
          // The codec hands back whatever context `mint` and `verify` were given: our binding.
          bind: (context) => bindingText(context as unknown as RequestStateBinding),
        }),
      ),
    );
    return this.#codecs;
  }
}

function asContext(binding: RequestStateBinding): ServerContext {
  return binding as unknown as ServerContext;
}

function bindingText({ principal, method, name, arguments: args }: RequestStateBinding): string {
  const argumentsHash = hashJson(args ?? {});
  return [principal.workspaceId, principal.agentId, method, name, argumentsHash].join('\n');
}
