/**
 * The REST upstream every configuration ends at: any method, any path, the same
 * small JSON body (about 200 bytes), keep-alive. As cheap as node:http allows, so
 * the numbers measure what sits in front of it.
 */
import { createServer } from 'node:http';
import { listenAndAnnounce } from './announce.ts';

const BODY = Buffer.from(
  JSON.stringify({
    user: 'usr_7Hq2kLm9',
    plan: 'team',
    quotas: {
      requests: { limit: 100_000, used: 31_415, resetsAt: '2025-07-01T00:00:00Z' },
      storageBytes: { limit: 10_737_418_240, used: 2_147_483_648 },
      seats: { limit: 25, used: 17 },
    },
  }),
);

const server = createServer((request, response) => {
  request.resume();
  response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': BODY.length,
  });
  response.end(BODY);
});
listenAndAnnounce(server);
