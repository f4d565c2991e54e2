export { type BullMqJobQueueOptions, createBullMqJobQueue } from './bullmq-job-queue.ts';
export { oncePerInterval } from './once-per-interval.ts';
export { redisReconnectDelayMs } from './redis-reconnect-delay-ms.ts';
