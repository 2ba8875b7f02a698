/** The Redis the tests share state through: PORTCULLIS_TEST_REDIS_URL, else the local one these machines run. */
export const TEST_REDIS_URL = process.env.PORTCULLIS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
