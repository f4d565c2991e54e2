export type {
  CancelSink,
  ChannelAdapter,
  ChannelHealth,
  ChannelStartOptions,
  DeliverOptions,
  FetchAttachmentOptions,
  FetchedAttachment,
  IntakeResult,
  IntentSink,
  ReplyCancelRequest,
} from './channel-adapter.ts';
export type {
  ChannelCapabilities,
  ChannelLinkState,
  ChannelRevisions,
  MediaKind,
  ReplyMediaKind,
} from './channel-capabilities.ts';
export {
  type ErrorCode,
  errorCodeSchema,
  NexusError,
  type NexusErrorOptions,
  toNexusError,
} from './error-codes.ts';
export {
  type Attachment,
  attachmentSchema,
  type ConversationKind,
  type ConversationRef,
  conversationKindSchema,
  conversationRefOf,
  type Intent,
  type IntentInput,
  intentSchema,
  MAX_INTENT_TEXT_CHARS,
  type Revision,
  revisionSchema,
} from './intent.ts';
export {
  type ActiveJob,
  type CloseJobQueueOptions,
  type CountJobsOptions,
  DEFAULT_JOB_ATTEMPTS,
  DEFAULT_JOB_BACKOFF,
  DEFAULT_JOB_CLOSE_TIMEOUT_MS,
  type EnqueueJobOptions,
  type EnqueueJobResult,
  isPermanentJobError,
  type JobBackoff,
  type JobCounts,
  JobError,
  type JobErrorOptions,
  type JobHandler,
  type JobProcessor,
  type JobQueue,
  type JobState,
  type JobStateOptions,
  type ListParkedJobsOptions,
  type ParkedJob,
  PermanentJobError,
  type ProcessJobsOptions,
  type PurgePayloadsOptions,
  type PurgePayloadsResult,
  type RetryParkedJobOptions,
  type RetryParkedJobResult,
} from './job-queue.ts';
export { type Logger, silentLogger } from './logger.ts';
export { describeMemoryAge } from './memory/memory-age.ts';
export type {
  MemoryAddRequest,
  MemoryAddResult,
  MemoryContextRequest,
  MemoryContextResult,
  MemoryListRequest,
  MemoryPort,
  MemoryRecord,
  MemoryScopeStatus,
  MemorySearchHit,
  MemorySearchRequest,
  MemoryStandingRequest,
} from './memory/memory-port.ts';
export {
  MEMORY_CATEGORIES,
  MEMORY_SCOPES,
  MEMORY_SOURCES,
  type MemoryCategory,
  type MemoryContextScope,
  type MemoryMetadataValues,
  type MemoryScope,
  type MemorySource,
  memoryCategorySchema,
  memoryScopeSchema,
  memorySourceSchema,
} from './memory/memory-vocabulary.ts';
export { type OutboundIntent, type OutboundResult, outboundIntentSchema } from './outbound-intent.ts';
export {
  type ReplyEvent,
  type ReplyEventType,
  type ReplyMediaEvent,
  replyEventSchema,
} from './reply-event.ts';
export { MAX_REPLY_MEDIA_BYTES, type ReplyMedia, replyMediaSchema } from './reply-media.ts';
export {
  WEB_SOCKET_CLOSE_CODES,
  WEB_SOCKET_PROTOCOL_VERSION,
  WEB_SOCKET_SUBPROTOCOL,
  WEB_SOCKET_TOKEN_PROTOCOL_PREFIX,
} from './web-socket-constants.ts';
export {
  type ClientFrame,
  clientFrameSchema,
  MAX_WEB_ATTACHMENTS,
  resumeRequestSchema,
  type ServerFrame,
  serverFrameSchema,
  type WebAttachment,
  type WebConversationSummary,
  webAttachmentSchema,
  webConversationSummarySchema,
} from './web-socket-frames.ts';
