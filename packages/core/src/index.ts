export {
  type Agent,
  type AgentPart,
  type AgentRunOptions,
  type CreateAgentOptions,
  createAgent,
  DEFAULT_NOT_CONFIGURED_MESSAGE,
  DEFAULT_SYSTEM_PROMPT,
} from './agent.ts';
export { type HistoryWithinBudget, historyWithinBudget } from './history-within-budget.ts';
export { describeFailure, MODEL_ERROR_MESSAGES, toModelError } from './model-error.ts';
export { createNexusCore, type NexusCore, type NexusCoreOptions, type NexusCoreStats } from './nexus-core.ts';
export type { TurnReport } from './run-turn.ts';
export type { AppendTurnOptions, SessionStore, StoredTurn, TurnOutcome } from './session-store.ts';
export { createSqliteSessionStore, type SqliteSessionStoreOptions } from './sqlite-session-store.ts';
export {
  approximateTokenCounter,
  loadTokenCounter,
  type TokenCounter,
  type TokenizerEncoding,
} from './token-counter.ts';
