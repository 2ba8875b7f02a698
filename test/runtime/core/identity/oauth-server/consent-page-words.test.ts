/**
 * What the consent page says about who asks and where the person signs in:
 * the client's name is its own (never vouched for by the gateway), with its
 * redirect host and, for a metadata-document client, the host of its
 * client_id; and the gateway's public host. And the remote sign-in callback's
 * words for what the sign-in discovered.
 */
import { describe, expect, it } from 'vitest';
import { consentPage } from '../../../../../runtime/core/identity/oauth-server/consent-page.ts';
import { discovered } from '../../../../../runtime/core/operator/sign-in-pages.ts';

const BASE = {
  request: 'sealed',
  csrf: 'csrf',
  clientName: 'Helpful App',
  redirectUri: 'https://app.example.com/callback',
  gateway: 'gateway.example.org',
  scopes: ['tools:read'],
};

describe('the consent page names who asks and where the person signs in', () => {
  it.each([
    [
      'a registered client',
      {
        view: { ...BASE, clientKind: 'registered' as const, clientId: 'pcc_123' },
        has: ['app.example.com', 'gateway.example.org', "the app's own"],
        hasNot: ['registered with this gateway', 'metadata document'],
      },
    ],
    [
      'a metadata-document client',
      {
        view: {
          ...BASE,
          clientKind: 'metadata_document' as const,
          clientId: 'https://publisher.example.net/client.json',
        },
        has: [
          'metadata document on <span class="host">publisher.example.net</span>',
          'app.example.com',
          'gateway.example.org',
        ],
        hasNot: ['registered with this gateway'],
      },
    ],
  ])('for %s', (_name, { view, has, hasNot }) => {
    const { body } = consentPage(view);
    for (const text of has) expect(body).toContain(text);
    for (const text of hasNot) expect(body).not.toContain(text);
  });
});

describe('the remote sign-in callback says what was discovered', () => {
  it.each([
    ['no tools list', { tools: undefined, want: '' }],
    ['no tools', { tools: 0, want: '<p>No tools were discovered on this server.</p>\n' }],
    ['one tool', { tools: 1, want: '1 tool was discovered; each is quarantined' }],
    ['three tools', { tools: 3, want: '3 tools were discovered; each is quarantined' }],
  ])('with %s', (_name, { tools, want }) => {
    const words = discovered(tools, 'docs');
    if (want === '') expect(words).toBe('');
    else expect(words).toContain(want);
    expect(words).not.toContain('0 tools');
  });
});
