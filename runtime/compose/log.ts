/**
 * The operator's log: JSON lines on stderr (pino), for what a person must be
 * able to find later, such as an internal error whose details no caller saw.
 * Fields that could carry a credential are redacted by path, and errors are
 * logged as their name, code, message and stack (messages never hold secrets;
 * see runtime/core/base/errors.ts).
 */
import { pino } from 'pino';

export type Log = pino.Logger;

/** `destination` defaults to stderr (tests pass a stream of their own). */
export function createLog(
  options: { level?: string; destination?: pino.DestinationStream } = {},
): Log {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: 'portcullis' },
      serializers: { err: pino.stdSerializers.errWithCause },
      redact: {
        paths: [
          '*.authorization',
          '*.headers.authorization',
          '*.credential',
          '*.token',
          '*.key',
          '*.secret',
        ],
        censor: '[redacted]',
      },
    },
    options.destination ?? pino.destination(2),
  );
}
