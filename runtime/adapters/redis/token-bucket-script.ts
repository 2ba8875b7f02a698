/**
 * `takeFromBucket` (`core/ports/shared-state/token-bucket.ts`) as one Lua
 * script, so a take is atomic across replicas: the same arithmetic, on the
 * Redis server's clock (`TIME`), so replicas whose clocks differ share one
 * bucket. The bucket is a hash (`tokens`, `at`) that expires when it would be
 * full again; a refusal writes nothing.
 *
 * KEYS[1]: the bucket; ARGV: per minute, burst. Answers {1, whole tokens
 * left} or {0, ms until a token}.
 */
export const TAKE_TOKEN = `
local perMs = tonumber(ARGV[1]) / 60000
local burst = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local level = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = burst
if level[1] then
  tokens = math.min(burst, tonumber(level[1]) + math.max(0, now - tonumber(level[2])) * perMs)
end
if tokens < 1 then
  return {0, math.max(1, math.ceil((1 - tokens) / perMs))}
end
local left = tokens - 1
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', left), 'at', string.format('%d', now))
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil((burst - left) / perMs)))
return {1, math.floor(left)}
`;
