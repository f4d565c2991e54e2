export { approximateTokenCounter, sharedTokenCounter, type TokenCounter } from '@nexus/limits-kit';
export { createAccessControl } from './access/access-control.ts';
export { ACCESS_SCHEMA_VERSION } from './access/access-database.ts';
export type {
  AccessControl,
  AccessDecision,
  AccessMemoryPort,
  AccessReply,
} from './access/access-decision.ts';
export { AccessError, type AccessErrorReason } from './access/access-error.ts';
export { ACCESS_MESSAGES } from './access/access-messages.ts';
export {
  type AccessControlOptions,
  type AccessRateLimits,
  DEFAULT_RATE_LIMITS,
  DIRECT_MESSAGE_POLICIES,
  type DirectMessagePolicy,
} from './access/access-options.ts';
export { type AccessStore, type AccessStoreOptions, createAccessStore } from './access/access-store.ts';
export {
  type ConversationNotifier,
  createConversationNotifier,
  type NotifyConversation,
} from './access/conversation-notifier.ts';
export type { PairingRequest, PairingStore } from './access/pairing-store.ts';
export type { BucketLimits } from './access/rate-limiter.ts';
export {
  type Agent,
  type AgentPart,
  type AgentRunOptions,
  type AgentUsage,
  type CreateAgentOptions,
  createAgent,
  DEFAULT_NOT_CONFIGURED_MESSAGE,
  DEFAULT_SYSTEM_PROMPT,
} from './agent.ts';
export type { RepliesFirst } from './background/replies-first.ts';
export type { ExtraCommand, ExtraCommands } from './commands/extra-commands.ts';
export {
  createSqliteDailyTokenBudget,
  type DailyAllowance,
  type DailyTokenBudget,
  dailyBudgetReply,
} from './cost/daily-token-budget.ts';
export {
  BudgetExhaustedError,
  type BudgetStopReason,
  type CallClaim,
  type CreateTurnBudget,
  createTurnBudget,
  DEFAULT_TURN_LIMITS,
  decideClaim,
  resolveTurnLimits,
  type TurnBudget,
  type TurnBudgetScope,
  type TurnLimits,
  type TurnSpend,
} from './cost/turn-budget.ts';
export { type ExtractionReport, extractMemories } from './extraction/extract-memories.ts';
export {
  enqueueMemoryExtraction,
  extractionJobId,
  MEMORY_EXTRACT_JOB,
  type MemoryExtractionPayload,
  memoryExtractionPayloadSchema,
} from './extraction/memory-extraction-job.ts';
export {
  type MemoryExtractionWorkerOptions,
  startMemoryExtractionWorker,
} from './extraction/memory-extraction-worker.ts';
export { parseModelJson } from './extraction/parse-model-json.ts';
export { type HistoryWithinBudget, historyWithinBudget } from './history-within-budget.ts';
export {
  type ErasedItems,
  type ForgetPersonOptions,
  type ForgetReport,
  forgetPerson,
  type PersonEraser,
} from './identity/forget-person.ts';
export { type IdentityRef, identityKey, parseIdentityKey } from './identity/identity-key.ts';
export type { Identity, IdentityStore, Person } from './identity/identity-store.ts';
export type { LinkCode, LinkCodeStore } from './identity/link-code-store.ts';
export { jobQueueEraser, mediaStoreEraser, sessionStoreEraser } from './identity/person-erasers.ts';
export type { ForgetTarget, PersonRecords } from './identity/person-records.ts';
export {
  type AttachmentRefusals,
  createAttachmentRefusals,
  createFileMediaStore,
  createOpenAiTranscriber,
  DEFAULT_MEDIA_SETTINGS,
  formatMegabytes,
  type MediaSettings,
  type MediaStore,
  personFolder,
  prepareTurnMedia,
  sniffMediaType,
  type Transcriber,
  type TurnMedia,
} from './media/index.ts';
export { KNOWN_FACTS_HEADER, SESSION_SUMMARY_HEADER } from './memory/fact-lines.ts';
export type {
  MemoryAddRequest,
  MemoryAddResult,
  MemoryContextRequest,
  MemoryContextResult,
  MemoryListRequest,
  MemoryPort,
  MemoryRecord,
  MemorySearchHit,
  MemorySearchRequest,
} from './memory/memory-port.ts';
export {
  GROUP_MEMORY_NOTE,
  GROUP_MEMORY_PREFIX,
  type GroupPersonalMemoryEntry,
  groupMemoryId,
  isGroupMemoryId,
  type MemorySubject,
  memorySubjectOf,
} from './memory/memory-subject.ts';
export {
  type MemoryStepReport,
  type MemoryStepResult,
  runMemoryStep,
} from './memory/run-memory-step.ts';
export {
  DEFAULT_MEMORY_STATUS_TEXT,
  type TurnMemoryOptions,
} from './memory/turn-memory.ts';
export { describeFailure, MODEL_ERROR_MESSAGES, toModelError } from './model-error.ts';
export {
  createNexusCore,
  type InboxReplay,
  MAX_INBOX_REPLAYS,
  type NexusCore,
  type NexusCoreOptions,
  type NexusCoreStats,
} from './nexus-core.ts';
export { createSchedules, type Schedules } from './schedules/create-schedules.ts';
export { createSqliteScheduleStore, type Schedule, type ScheduleStore } from './schedules/schedule-store.ts';
export { SCHEDULE_JOB_NAME, type ScheduledDeliveryOutcome, type Scheduler } from './schedules/scheduler.ts';
export type {
  AdmitIntentOptions,
  AppendTurnOptions,
  InboxEntry,
  InboxEntryKind,
  IntentKey,
  SessionStore,
  StoredTurn,
  TurnOutcome,
} from './session-store.ts';
export {
  SESSION_SUMMARY_JOB,
  type SessionSummaryPayload,
  scheduleSessionSummary,
} from './session-summary/session-summary-job.ts';
export {
  type SessionSummaryWorkerOptions,
  startSessionSummaryWorker,
} from './session-summary/session-summary-worker.ts';
export { createSqliteSessionStore, type SqliteSessionStoreOptions } from './sqlite-session-store.ts';
export {
  DEFAULT_SUBAGENT_SETTINGS,
  type SubagentSettings,
  type TurnToolName,
} from './subagents/subagent-settings.ts';
export {
  formatZonedTime,
  isValidTimeZone,
  parseZonedTime,
  zonedCalendarDate,
} from './time-zones/zoned-time.ts';
export { createMemoryTools, type MemoryToolsOptions } from './tools/memory-tools.ts';
export type { OutsideTools } from './tools/outside-tools.ts';
export { failSpan } from './tracing/in-span.ts';
export { enableModelCallTelemetry } from './tracing/model-call-telemetry.ts';
export { SPAN } from './tracing/turn-spans.ts';
export type { TurnTracing } from './tracing/turn-tracing.ts';
export type { TurnReport } from './turn/run-turn.ts';
