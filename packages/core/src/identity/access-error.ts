import { type ErrorCode, NexusError } from '@nexus/protocol';

/** Why an access operation was refused; stable, so the CLI and the admin view can react to it. */
export type AccessErrorReason =
  | 'unknown_code'
  | 'expired_code'
  | 'locked_out'
  | 'unknown_identity'
  | 'invalid_identity'
  | 'already_linked'
  | 'not_linked';

const CODES: Record<AccessErrorReason, ErrorCode> = {
  unknown_code: 'unauthorized',
  expired_code: 'unauthorized',
  locked_out: 'rate_limited',
  unknown_identity: 'invalid_config',
  invalid_identity: 'invalid_config',
  already_linked: 'invalid_config',
  not_linked: 'invalid_config',
};

export class AccessError extends NexusError {
  readonly reason: AccessErrorReason;

  constructor(options: { reason: AccessErrorReason; message: string; cause?: unknown }) {
    super({ code: CODES[options.reason], message: options.message, cause: options.cause });
    this.name = 'AccessError';
    this.reason = options.reason;
  }
}
