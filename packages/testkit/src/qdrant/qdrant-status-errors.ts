/**
 * Qdrant's `StorageError` kinds that the stand-in answers with their own HTTP status, as the
 * server's actix helpers (`status_code` of `StorageError`) map them: `NotFound` → 404, `AlreadyExists` → 409.
 * (`BadInput`/`BadRequest` → 400 is `QdrantInputError`.)
 */
export class QdrantNotFoundError extends Error {
  readonly status = 404;
}

export class QdrantConflictError extends Error {
  readonly status = 409;
}

/** The Qdrant server version `docker-compose.yml` deploys; the stand-in reports it at `GET /`. */
export const QDRANT_DEPLOYED_VERSION = '1.19.0';
