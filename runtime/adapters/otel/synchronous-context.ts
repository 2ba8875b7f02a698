/**
 * The SDK's context manager: the active context for the synchronous call
 * only (`with` sets it, runs the function, puts the previous one back),
 * never carried across an `await`. The core passes its trace along itself
 * (`core/base/tracing.ts`) and asks the API for no active context; what
 * still calls `context.with` is the SDK's own work (the batch processor's
 * `suppressTracing` around an export), which this keeps true for the
 * synchronous part.
 *
 * Why not the SDK's default, `AsyncLocalStorageContextManager`: on Node 20
 * entering an AsyncLocalStorage turns on a promise hook for every promise
 * of the process, measured at +10–15% CPU per governed call before any span
 * is made (docs/benchmarks.md, bench:telemetry). Why not the API's
 * `NoopContextManager`: its `with` sets nothing, not even for the
 * synchronous call. The same idea ships as `StackContextManager` in
 * `@opentelemetry/sdk-trace`, only a transitive dependency here; these few
 * lines spare declaring one more package.
 */
import { type Context, type ContextManager, ROOT_CONTEXT } from '@opentelemetry/api';

export class SynchronousContextManager implements ContextManager {
  #active: Context = ROOT_CONTEXT;

  active(): Context {
    return this.#active;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.#active;
    this.#active = context;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.#active = previous;
    }
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const manager = this;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    return function bound(this: unknown, ...args: unknown[]) {
      return manager.with(context, () => fn.apply(this, args));
    } as unknown as T;
  }

  enable(): this {
    this.#active = ROOT_CONTEXT;
    return this;
  }

  disable(): this {
    this.#active = ROOT_CONTEXT;
    return this;
  }
}
