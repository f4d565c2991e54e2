export { describeJobQueueContract, type JobQueueContractOptions } from './job-queue-contract.ts';
export {
  type JobQueueWorkerModule,
  type SpawnedJobQueueWorker,
  spawnJobQueueWorker,
} from './spawn-job-queue-worker.ts';
export { sleep, waitFor } from './wait-for.ts';
