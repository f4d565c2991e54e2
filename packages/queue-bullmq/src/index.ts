export { type BullMqJobQueueOptions, createBullMqJobQueue } from './bullmq-job-queue.ts';
