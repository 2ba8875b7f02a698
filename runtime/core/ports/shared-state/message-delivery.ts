/**
 * Hands a published message to one listener, so that a listener that throws
 * costs only its own delivery. Both `SharedState` implementations deliver
 * through it.
 */
import type { ListenerErrorHandler, MessageListener } from './shared-state.ts';

export function deliverMessage(
  listener: MessageListener,
  message: string,
  onListenerError: ListenerErrorHandler,
): void {
  try {
    listener(message);
  } catch (error) {
    onListenerError(error);
  }
}

/** Where a listener's error goes when the composition root names no other place: a process warning. */
export const warnOfListenerError: ListenerErrorHandler = (error) => {
  process.emitWarning(error instanceof Error ? error.message : String(error), {
    type: 'SharedStateListenerError',
    ...(error instanceof Error && error.stack !== undefined ? { detail: error.stack } : {}),
  });
};
