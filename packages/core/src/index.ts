// biome-ignore-all assist/source/organizeImports: exports are grouped by who uses them, not sorted by path
/**
 * What other packages use of core, grouped by use. Everything else stays inside the package.
 */
// Running core: the daemon, its sessions, agent and turn limits (the gateway; the remote agent in agent-redis)
export { approximateTokenCounter, sharedTokenCounter, type TokenCounter } from '@nexus/limits-kit';
export { type Agent, type AgentPart, type AgentRunOptions, createAgent } from './agent/agent.ts';
export type { ExtraCommands } from './commands/extra-commands.ts';
export { createSqliteDailyTokenBudget } from './cost/daily-token-budget.ts';
export {
  type BudgetStopReason,
  type CallClaim,
  type CreateTurnBudget,
  createTurnBudget,
  DEFAULT_TURN_LIMITS,
  decideClaim,
  type TurnBudget,
  type TurnBudgetScope,
  type TurnLimits,
  type TurnSpend,
} from './cost/turn-budget.ts';
export { MODEL_ERROR_MESSAGES, toModelError } from './errors/model-error.ts';
export { createNexusCore, type NexusCore, type NexusCoreOptions } from './nexus-core.ts';
export type {
  ConversationEntry,
  ConversationList,
  ConversationMessage,
  ImportedExchange,
  ImportOutcome,
} from './session-store/conversation-list.ts';
export type { SessionStore } from './session-store/session-store.ts';
export { createSqliteSessionStore } from './session-store/sqlite-session-store.ts';
export type { OutsideTools } from './tools/outside-tools.ts';

// Memory work: the memory step's report, extraction and summary workers (the gateway's memory composition)
export type { MemoryStepReport } from './memory/context/run-memory-step.ts';
export type { TurnMemoryOptions } from './memory/context/turn-memory.ts';
export type { ExtractionReport } from './memory/extraction/extract-memories.ts';
export { enqueueMemoryExtraction, MEMORY_EXTRACT_JOB } from './memory/extraction/memory-extraction-job.ts';
export { startMemoryExtractionWorker } from './memory/extraction/memory-extraction-worker.ts';
export { forgetScheduledSummaries } from './memory/summaries/summary-schedule-memo.ts';
export { startSessionSummaryWorker } from './memory/summaries/session-summary-worker.ts';

// People: access, identities, forgetting a person
export { createAccessControl } from './access-control/access-control.ts';
export { ACCESS_SCHEMA_VERSION } from './identity/access-database.ts';
export type { AccessControl, AccessMemoryPort } from './access/access-decision.ts';
export { AccessError } from './identity/access-error.ts';
export { type AccessStore, createAccessStore } from './access/access-store.ts';
export {
  type ConversationNotifier,
  createConversationNotifier,
  type NotifyConversation,
} from './access/conversation-notifier.ts';
export { forgetPerson } from './commands/forget-person.ts';
export { parseIdentityKey } from './identity/identity-key.ts';
export type { Identity } from './identity/identity-store.ts';
export {
  jobQueueEraser,
  mediaStoreEraser,
  type PersonEraser,
  sessionStoreEraser,
} from './identity/person-erasers.ts';
export type { ForgetTarget } from './identity/person-records.ts';

// Media
export {
  type AttachmentRefusals,
  createAttachmentRefusals,
  createFileMediaStore,
  createOpenAiTranscriber,
  formatMegabytes,
  type MediaSettings,
  type MediaStore,
  personFolder,
  sniffMediaType,
} from './media/index.ts';

// Schedules and time zones
export { createSchedules, type Schedules } from './schedules/create-schedules.ts';
export { createSqliteScheduleStore, type Schedule, type ScheduleStore } from './schedules/schedule-store.ts';
export { zonedCalendarDate } from './time-zones/zoned-time.ts';

// Tracing
export { failSpan } from './tracing/in-span.ts';
export { enableModelCallTelemetry } from './tracing/model-call-telemetry.ts';
export type { TurnTracing } from './tracing/turn-tracing.ts';

// Turn
export type { TurnReport } from './turn/run-turn.ts';
