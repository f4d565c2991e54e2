import type { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';

/**
 * The checkpointer thread: one connection per file, a PASSIVE checkpoint when asked (it copies
 * what the WAL holds into the main file without waiting on, or blocking, the writer), then an
 * answer after `pauseMs`, so one file is checkpointed at most that often however fast it commits.
 * Nothing in it throws: a file it cannot open or checkpoint is left to the writer's own checkpoints.
 */
const CHECKPOINTER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const connections = new Map();
function attempt(work) {
  try {
    work();
  } catch {}
}
parentPort.on('message', ({ op, path, pauseMs }) => {
  if (op === 'open') {
    attempt(() => {
      const database = new DatabaseSync(path);
      connections.set(path, database);
      database.exec('PRAGMA busy_timeout = 5000');
    });
  } else if (op === 'close') {
    attempt(() => connections.get(path)?.close());
    connections.delete(path);
  } else if (op === 'exit') {
    parentPort.close();
  } else if (op === 'checkpoint') {
    attempt(() => connections.get(path)?.exec('PRAGMA wal_checkpoint(PASSIVE)'));
    setTimeout(() => parentPort.postMessage(path), pauseMs);
  }
});
`;

/**
 * How far the WAL may grow (pages, 16 MB) before the writing connection checkpoints it itself.
 * The thread's checkpoints copy the pages but cannot restart the WAL while commits keep coming
 * (a writer restarts it only when it begins with every frame copied), so under steady load the
 * writer's own checkpoint, which by then copies only the last few pages, restarts it here: two
 * fsyncs per 4,000 pages on the event loop instead of two per 1,000 plus all the copying.
 */
const BACKSTOP_PAGES = 4_000;
/** At most one checkpoint of a file this often (each is two fsyncs). */
const CHECKPOINT_PAUSE_MS = 50;

interface Registration {
  path: string;
  /** A checkpoint was asked for and not answered yet. */
  requested: boolean;
  /** A commit came since the last checkpoint was asked for. */
  dirty: boolean;
  /** The thread has a connection to the file. */
  opened: boolean;
}

const registered = new WeakMap<DatabaseSync, Registration>();
const byPath = new Map<string, Registration>();
let worker: Worker | undefined;

function checkpointer(): Worker {
  if (worker) return worker;
  // A thread with a small heap: it holds a few connections and passes paths.
  const started = new Worker(CHECKPOINTER_SOURCE, {
    eval: true,
    resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 },
  });
  started.on('message', (path: string) => {
    const registration = byPath.get(path);
    if (!registration) return;
    registration.requested = false;
    // A failed checkpoint (a busy file, a full disk) is tried again with the next commit; the
    // writing connection's own checkpoint at BACKSTOP_PAGES keeps the WAL bounded meanwhile.
    if (registration.dirty) request(registration);
  });
  // Lost the thread (out of memory, say; 'exit' follows 'error'): the next commit of each file
  // starts a new one and opens its connection again; meanwhile SQLite's own checkpoint at
  // BACKSTOP_PAGES runs.
  started.on('error', () => {});
  started.on('exit', () => {
    if (worker !== started) return;
    worker = undefined;
    for (const registration of byPath.values()) {
      registration.requested = false;
      registration.opened = false;
    }
  });
  // Never keeps the process alive (after the listeners: adding one refs the port again); a
  // store's close stops its file's connection.
  started.unref();
  worker = started;
  return started;
}

function request(registration: Registration): void {
  const thread = checkpointer();
  if (!registration.opened) {
    thread.postMessage({ op: 'open', path: registration.path });
    registration.opened = true;
  }
  registration.dirty = false;
  registration.requested = true;
  thread.postMessage({ op: 'checkpoint', path: registration.path, pauseMs: CHECKPOINT_PAUSE_MS });
}

/**
 * Moves this connection's WAL checkpoints to a background thread. SQLite otherwise checkpoints
 * inside the COMMIT that takes the WAL past 1,000 pages: it copies those pages into the main file
 * and fsyncs both files on the event loop. Here the commit only tells the thread, which
 * checkpoints on its own connection. What a commit makes durable does not change (a commit is in
 * the WAL, and the WAL is the file's truth until checkpointed); only where the copy happens.
 * Not for `:memory:` or a file opened with `locking_mode = EXCLUSIVE` (no other connection can
 * read it): those keep SQLite's own checkpoints.
 */
export function checkpointInBackground(database: DatabaseSync, path: string): void {
  if (path === ':memory:' || registered.has(database) || byPath.has(path)) return;
  const registration: Registration = { path, requested: false, dirty: false, opened: false };
  database.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  registered.set(database, registration);
  byPath.set(path, registration);
}

/** Called after every commit (by `inTransaction`): asks the thread for a checkpoint when none is under way. */
export function committed(database: DatabaseSync): void {
  const registration = registered.get(database);
  if (!registration) return;
  if (registration.requested) registration.dirty = true;
  else request(registration);
}

/** Before the connection closes: its file's connection in the thread closes too. */
export function stopBackgroundCheckpoints(database: DatabaseSync): void {
  const registration = registered.get(database);
  if (!registration) return;
  registered.delete(database);
  byPath.delete(registration.path);
  worker?.postMessage({ op: 'close', path: registration.path });
  if (byPath.size === 0 && worker) {
    const stopping = worker;
    worker = undefined;
    // Handled after the close above (messages arrive in order).
    stopping.postMessage({ op: 'exit' });
  }
}
