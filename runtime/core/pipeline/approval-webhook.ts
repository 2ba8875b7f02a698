/**
 * The optional notice of a held call (docs/approvals.md#the-webhook): a POST
 * of JSON to the operator's URL, signed as Standard Webhooks sign
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 of
 * HMAC-SHA256 over "<id>.<timestamp>.<body>">`), sent through the guarded
 * client like every other request (so a private or loopback address is
 * refused unless the deployment allows private networks), retried with
 * backoff on a failure or a status other than 2xx. It never holds up the
 * call: it is sent after the approval is stored, and a notice that does not
 * get through is the operator's log's. It names the call, never its
 * arguments (approvers read those where they approve).
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Approval } from '../model/approvals.ts';
import type { GuardedClient } from '../outbound/guarded-client.ts';

export interface ApprovalWebhookOptions {
  url: URL;
  /** `whsec_<base64>` (its bytes), or any other text (its UTF-8 bytes). */
  secret: string;
  client: GuardedClient;
  /** Told of a notice given up on. */
  report: (error: unknown) => void;
  now?: () => Date;
  /** Tries after the first; default 4. */
  retries?: number;
  /** The first wait; doubled each try. Default 1000 ms. */
  backoffMs?: number;
}

export class ApprovalWebhook {
  readonly #options: ApprovalWebhookOptions;
  readonly #key: Buffer;
  readonly #sending = new Set<Promise<void>>();

  constructor(options: ApprovalWebhookOptions) {
    this.#options = options;
    this.#key = keyOf(options.secret);
  }

  /** Sends the notice of `approval`, held now, in the background. */
  held(approval: Approval): void {
    const sent = this.#send({
      type: 'approval.held',
      timestamp: (this.#options.now?.() ?? new Date()).toISOString(),
      data: {
        approval: approval.id,
        workspaceId: approval.workspaceId,
        agentId: approval.agentId,
        memberId: approval.memberId,
        connectionId: approval.connectionId,
        action: approval.action,
        classification: approval.classification,
        argumentsHash: approval.argumentsHash,
        expiresAt: approval.expiresAt,
      },
    }).catch(this.#options.report);
    this.#sending.add(sent);
    void sent.finally(() => this.#sending.delete(sent));
  }

  /** Resolves once every notice under way is sent or given up on. */
  async settled(): Promise<void> {
    await Promise.all([...this.#sending]);
  }

  async #send(payload: unknown): Promise<void> {
    const body = JSON.stringify(payload);
    const id = `msg_${randomBytes(12).toString('base64url')}`;
    const retries = this.#options.retries ?? 4;
    let wait = this.#options.backoffMs ?? 1_000;
    let last: unknown;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait *= 2;
      }
      const timestamp = Math.floor(Date.now() / 1000).toString();
      try {
        const reply = await this.#options.client.send({
          method: 'POST',
          url: this.#options.url,
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': timestamp,
            'webhook-signature': signatureOf(this.#key, id, timestamp, body),
          },
          body,
        });
        if (reply.status >= 200 && reply.status < 300) return;
        last = new Error(`the approval webhook answered ${reply.status}`);
      } catch (error) {
        last = error;
      }
    }
    throw last;
  }
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, as Standard Webhooks sign. */
export function signatureOf(key: Buffer, id: string, timestamp: string, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export function keyOf(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}
