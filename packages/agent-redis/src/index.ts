// The remote-agent transport over Redis (DESIGN §7): the gateway side (`startAgentRunGateway`,
// core's `Agent` whose runs go to workers) and the worker side (`startAgentRunWorkerHost`). Takes
// options objects and injected clients; never reads env (the gateway's roles/ composes it).
export { agentRunEraser } from './agent-run-eraser.ts';
export {
  type AgentRunGateway,
  type AgentRunGatewayOptions,
  startAgentRunGateway,
} from './agent-run-gateway.ts';
export {
  AGENT_RUN_JOB,
  type AgentRunPayload,
  agentRunKeys,
  type RunMessage,
  type WorkerMessage,
} from './agent-run-protocol.ts';
export type { AgentRunReport } from './agent-run-worker.ts';
export {
  type AgentRunWorkerHost,
  type AgentRunWorkerHostOptions,
  startAgentRunWorkerHost,
} from './agent-run-worker-host.ts';
export type { BudgetObserver } from './observed-turn-budget.ts';
export { createRedisClient } from './redis-client.ts';
export { createRedisTurnBudget } from './redis-turn-budget.ts';
export { sendToInbox } from './stream-inbox.ts';
