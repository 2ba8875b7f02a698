/**
 * Which redirect URIs are ChatGPT's connector callback (seed 002's shape,
 * and the older one), and the form a client gets: its own choice, else
 * `result` when every redirect URI is ChatGPT's, else the deployment's.
 */
import { describe, expect, it } from 'vitest';
import {
  isChatGptRedirectUri,
  stepUpChoiceOf,
} from '../../../../../runtime/core/identity/oauth-server/step-up-form.ts';

describe('isChatGptRedirectUri', () => {
  it.each([
    ['the connector callback', 'https://chatgpt.com/connector/oauth/cb_6f1c2e9a4d', true],
    ['the older connector callback', 'https://chatgpt.com/connector_platform_oauth_redirect', true],
    ['the older host', 'https://chat.openai.com/connector/oauth/abc', true],
    ['http', 'http://chatgpt.com/connector/oauth/abc', false],
    ['another host', 'https://chatgpt.com.evil.example/connector/oauth/abc', false],
    ['a subdomain', 'https://x.chatgpt.com/connector/oauth/abc', false],
    ['a port', 'https://chatgpt.com:8443/connector/oauth/abc', false],
    ['userinfo', 'https://me@chatgpt.com/connector/oauth/abc', false],
    ['no callback id', 'https://chatgpt.com/connector/oauth/', false],
    ['a deeper path', 'https://chatgpt.com/connector/oauth/abc/more', false],
    ['another path', 'https://chatgpt.com/oauth/callback', false],
    ['not a URL', 'chatgpt.com/connector/oauth/abc', false],
  ])('%s: %s', (_name, uri, want) => {
    expect(isChatGptRedirectUri(uri)).toBe(want);
  });
});

describe('stepUpChoiceOf', () => {
  const CHATGPT = 'https://chatgpt.com/connector/oauth/abc';
  const LOOPBACK = 'http://127.0.0.1:9/callback';
  it.each([
    [
      'a choice wins',
      { redirectUris: [CHATGPT], stepUp: 'http' as const },
      'http',
      { form: 'http', why: 'chosen' },
    ],
    [
      "ChatGPT's redirect URIs",
      { redirectUris: [CHATGPT] },
      'http',
      { form: 'result', why: 'chatgpt' },
    ],
    [
      'one redirect URI not ChatGPT\u2019s',
      { redirectUris: [CHATGPT, LOOPBACK] },
      'http',
      { form: 'http', why: 'default' },
    ],
    [
      'the deployment default',
      { redirectUris: [LOOPBACK] },
      'result',
      { form: 'result', why: 'default' },
    ],
    ['no redirect URIs', { redirectUris: [] }, 'http', { form: 'http', why: 'default' }],
  ] as const)('%s', (_name, client, fallback, want) => {
    expect(stepUpChoiceOf(client, fallback)).toEqual(want);
  });
});
