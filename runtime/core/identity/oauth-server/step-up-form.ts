/**
 * The form a client's step-up takes (`StepUpForm`), decided per client: the
 * one an operator chose for it (`portcullis oauth client <id> --step-up`, the
 * console's OAuth clients page), else `result` for a client whose every
 * redirect URI is ChatGPT's connector callback (it reads the challenge from
 * the result's `_meta["mcp/www_authenticate"]`, and cannot step up from an
 * HTTP 403), else the deployment's default (`PORTCULLIS_OAUTH_STEP_UP`,
 * unset: `http`, what the MCP SDKs' clients step up from). A client known by
 * its metadata document URL has no registration to choose in: it gets the
 * default (`client-directory.ts`).
 */
import type { StepUpForm } from '../../model/oauth.ts';

/** Why a client gets its form, as the console, the command and the consent review say it. */
export type StepUpReason = 'chosen' | 'chatgpt' | 'default';

export interface StepUpChoice {
  form: StepUpForm;
  why: StepUpReason;
}

const CHATGPT_HOSTS: ReadonlySet<string> = new Set(['chatgpt.com', 'chat.openai.com']);
/** `/connector/oauth/{callback_id}` (new apps), `/connector_platform_oauth_redirect` (older ones). */
const CHATGPT_CALLBACK =
  /^\/(?:connector\/oauth\/[A-Za-z0-9_-]{1,200}|connector_platform_oauth_redirect)$/;

/** Whether a redirect URI has the shape of ChatGPT's connector callback (https, its host, its path). */
export function isChatGptRedirectUri(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  return (
    url.protocol === 'https:' &&
    url.port === '' &&
    url.username === '' &&
    CHATGPT_HOSTS.has(url.hostname) &&
    CHATGPT_CALLBACK.test(url.pathname)
  );
}

export function stepUpChoiceOf(
  client: { redirectUris: readonly string[]; stepUp?: StepUpForm | undefined },
  fallback: StepUpForm,
): StepUpChoice {
  if (client.stepUp !== undefined) return { form: client.stepUp, why: 'chosen' };
  if (client.redirectUris.length > 0 && client.redirectUris.every(isChatGptRedirectUri))
    return { form: 'result', why: 'chatgpt' };
  return { form: fallback, why: 'default' };
}
