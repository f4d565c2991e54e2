export { createSqliteJobQueue, type SqliteJobQueueOptions } from './sqlite-job-queue.ts';
