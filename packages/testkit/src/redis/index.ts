export { RedisProcess } from './redis-process.ts';
