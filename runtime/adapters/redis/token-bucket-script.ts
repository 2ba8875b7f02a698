/**
 * `takeFromBuckets` (`core/ports/shared-state/token-bucket.ts`) as one Lua
 * script, so a take from several buckets is one round trip and atomic across
 * replicas: the same arithmetic, on the Redis server's clock (`TIME`), so
 * replicas whose clocks differ share one bucket. Each bucket is a hash
 * (`tokens`, `at`) that expires when it would be full again; a refusal
 * writes nothing, and neither does a bucket of the wrong type (read before
 * any write).
 *
 * KEYS: the buckets; ARGV: per minute and burst of each in turn. Answers
 * {1, whole tokens left in each…} or {0, index of the first refusing
 * bucket, ms until every bucket has a token}.
 */
export const TAKE_TOKENS = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local tokens, perMs, burst = {}, {}, {}
local refusedBy, wait = 0, 0
for i = 1, #KEYS do
  perMs[i] = tonumber(ARGV[2 * i - 1]) / 60000
  burst[i] = tonumber(ARGV[2 * i])
  local level = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local held = burst[i]
  if level[1] then
    held = math.min(burst[i], tonumber(level[1]) + math.max(0, now - tonumber(level[2])) * perMs[i])
  end
  tokens[i] = held
  if held < 1 then
    if refusedBy == 0 then refusedBy = i end
    wait = math.max(wait, math.max(1, math.ceil((1 - held) / perMs[i])))
  end
end
if refusedBy > 0 then return {0, refusedBy - 1, wait} end
local answer = {1}
for i = 1, #KEYS do
  local left = tokens[i] - 1
  redis.call('HSET', KEYS[i], 'tokens', string.format('%.17g', left), 'at', string.format('%d', now))
  redis.call('PEXPIRE', KEYS[i], math.max(1, math.ceil((burst[i] - left) / perMs[i])))
  answer[i + 1] = math.floor(left)
end
return answer
`;
