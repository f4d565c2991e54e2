import type { Logger } from '@nexus/protocol';
import type { pino } from 'pino';

type Level = 'debug' | 'info' | 'warn' | 'error';

/**
 * The root logger with children made only when they first write a line. pino serialises (and
 * redacts, and pseudonymises) a child's bindings when the child is made, whatever the level; a
 * turn makes a few children and, at the default level, usually writes nothing through them.
 * Lines are the same as through pino's own children; `flush` is the root's.
 */
export function withLazyChildren(
  root: pino.Logger,
  /** Applied to a child's bindings when it is made (pino formats only the root's own). */
  prepareBindings: (bindings: Record<string, unknown>) => Record<string, unknown> = (bindings) => bindings,
): Logger & Pick<pino.Logger, 'flush'> {
  return {
    debug: (object, message) => write(root, 'debug', object, message),
    info: (object, message) => write(root, 'info', object, message),
    warn: (object, message) => write(root, 'warn', object, message),
    error: (object, message) => write(root, 'error', object, message),
    child: (bindings) => new LazyChildLogger(root, () => root, bindings, prepareBindings),
    flush: (callback) => root.flush(callback),
  };
}

class LazyChildLogger implements Logger {
  readonly #root: pino.Logger;
  readonly #parent: () => pino.Logger;
  readonly #bindings: Record<string, unknown>;
  readonly #prepare: (bindings: Record<string, unknown>) => Record<string, unknown>;
  #made: pino.Logger | undefined;

  constructor(
    root: pino.Logger,
    parent: () => pino.Logger,
    bindings: Record<string, unknown>,
    prepare: (bindings: Record<string, unknown>) => Record<string, unknown>,
  ) {
    this.#root = root;
    this.#parent = parent;
    this.#prepare = prepare;
    // A copy: what was bound when the child was made is what its lines carry.
    this.#bindings = { ...bindings };
  }

  debug(object: object, message?: string): void {
    this.#write('debug', object, message);
  }

  info(object: object, message?: string): void {
    this.#write('info', object, message);
  }

  warn(object: object, message?: string): void {
    this.#write('warn', object, message);
  }

  error(object: object, message?: string): void {
    this.#write('error', object, message);
  }

  child(bindings: Record<string, unknown>): Logger {
    return new LazyChildLogger(this.#root, () => this.#logger(), bindings, this.#prepare);
  }

  #write(level: Level, object: object, message: string | undefined): void {
    if (this.#root.isLevelEnabled(level)) write(this.#logger(), level, object, message);
  }

  #logger(): pino.Logger {
    this.#made ??= this.#parent().child(this.#prepare(this.#bindings));
    return this.#made;
  }
}

/** With the arguments as given: pino tells a missing message from an undefined one. */
function write(logger: pino.Logger, level: Level, object: object, message: string | undefined): void {
  if (message === undefined) logger[level](object);
  else logger[level](object, message);
}
