import type { DatabaseSync } from 'node:sqlite';
import { openSqliteDatabase } from '@nexus/sqlite-kit';
import { getLoadablePath } from 'sqlite-vec';
import { EmbedderMismatchError, MemoryStoreError } from '../model/memory-errors.ts';
import type { VectorSpace } from '../model/memory-store.ts';
import { prepareSearchIndexes } from './sqlite-migration.ts';
import { SQLITE_TABLES } from './sqlite-schema.ts';

/**
 * Opens (or creates) the memory store's SQLite file with sqlite-vec loaded, its tables and search
 * indexes prepared, and the embedder it holds vectors of recorded. A file written with another
 * embedder is refused (`EmbedderMismatchError`): two models' vectors are never mixed.
 */
export function openMemoryDatabase(options: { path: string; vectors?: VectorSpace | undefined }): {
  database: DatabaseSync;
  vectorSpace: VectorSpace | undefined;
} {
  let database: DatabaseSync;
  try {
    // No user_version migrations: this store versions its schema in its `meta` table
    // (sqlite-migration.ts), which predates the kit; the kit's opener still refuses nothing here.
    database = openSqliteDatabase({
      path: options.path,
      storeName: 'memory store',
      migrations: [],
      foreignKeys: true,
      allowExtension: true,
    });
    database.loadExtension(getLoadablePath());
  } catch (error) {
    throw new MemoryStoreError({
      message: `Cannot open the memory store at ${options.path}.`,
      cause: error,
    });
  }
  // A 64 MiB page cache and memory-mapped reads keep KNN scans and BM25 reads off syscalls.
  // Checkpoints every ~40 MB of WAL instead of 4 MB: an add dirties pages all over the file
  // (the person's vector chunk, four indexes, FTS5 segments), and copying them back less often
  // lets one checkpoint write a page that many adds changed (measured: commit cost per add
  // from ~85 to ~32 µs). The WAL is cut back to 64 MiB after a checkpoint.
  database.exec(`PRAGMA cache_size = -65536; PRAGMA mmap_size = 268435456; PRAGMA temp_store = MEMORY;
    PRAGMA wal_autocheckpoint = 10000; PRAGMA journal_size_limit = 67108864;`);
  database.exec(SQLITE_TABLES);
  const stored = database.prepare("SELECT value FROM meta WHERE key = 'vector_space'").get() as
    | { value: string }
    | undefined;
  const storedSpace = stored ? (JSON.parse(stored.value) as VectorSpace) : undefined;
  if (storedSpace && options.vectors && !sameSpace(storedSpace, options.vectors)) {
    database.close();
    throw new EmbedderMismatchError({
      stored: `${storedSpace.embedderId} (${storedSpace.dimensions} dimensions)`,
      configured: `${options.vectors.embedderId} (${options.vectors.dimensions} dimensions)`,
    });
  }
  const vectorSpace = storedSpace ?? options.vectors;
  try {
    prepareSearchIndexes(database, vectorSpace?.dimensions);
  } catch (error) {
    database.close();
    throw new MemoryStoreError({
      message: `Cannot prepare the memory store at ${options.path}.`,
      cause: error,
    });
  }
  if (vectorSpace) {
    database
      .prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('vector_space', ?)")
      .run(JSON.stringify(vectorSpace));
  }
  return { database, vectorSpace };
}

function sameSpace(left: VectorSpace, right: VectorSpace): boolean {
  return left.embedderId === right.embedderId && left.dimensions === right.dimensions;
}
