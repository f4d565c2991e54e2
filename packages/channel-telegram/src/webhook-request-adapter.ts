import type { IncomingMessage, ServerResponse } from 'node:http';
import { NexusError } from '@nexus/protocol';
import type { Update } from 'grammy/types';

/** A webhook request refused before grammY saw it; `status` is the HTTP answer. */
export class TelegramWebhookRequestError extends NexusError {
  readonly status: 400 | 413;

  constructor(options: { status: 400 | 413; message: string; cause?: unknown }) {
    super({
      code: options.status === 413 ? 'payload_too_large' : 'bad_frame',
      message: options.message,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.name = 'TelegramWebhookRequestError';
    this.status = options.status;
  }
}

const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/**
 * What the adapter hands grammY. No `handlerReturn`: grammY's types then make the webhook
 * handler resolve to nothing (Promise<void>).
 */
interface WebhookRequest {
  readonly update: Promise<Update>;
  header?: string;
  handlerReturn?: never;
  end(): void;
  respond(json: string): void;
  unauthorized(): void;
}

/**
 * grammY's `http` adapter, with a limit on the body. grammY's own reads whatever a caller sends
 * into memory; an update is a few kilobytes (files travel separately), so anything past
 * `maxBodyBytes` is refused with 413 and never buffered. The body is only read after grammY has
 * checked the secret token, so strangers cannot make the gateway read anything.
 */
export function webhookRequestAdapter(maxBodyBytes: number) {
  return (request: IncomingMessage, response: ServerResponse): WebhookRequest => {
    const secret = request.headers[SECRET_HEADER];
    const header = Array.isArray(secret) ? secret[0] : secret;
    return {
      get update(): Promise<Update> {
        return readUpdate(request, maxBodyBytes);
      },
      ...(header === undefined ? {} : { header }),
      end: () => {
        response.end();
      },
      respond: (json: string) => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(json);
      },
      unauthorized: () => {
        // Nothing of the body is wanted; closing the connection stops the sender.
        response.writeHead(401, { connection: 'close' }).end('secret token is wrong');
      },
    };
  };
}

function readUpdate(request: IncomingMessage, maxBodyBytes: number): Promise<Update> {
  const tooLarge = () =>
    new TelegramWebhookRequestError({
      status: 413,
      message: `The update is larger than ${maxBodyBytes} bytes.`,
    });
  if (Number(request.headers['content-length'] ?? 0) > maxBodyBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        request.off('data', onData);
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch (error) {
        reject(
          new TelegramWebhookRequestError({
            status: 400,
            message: 'The update is not valid JSON.',
            cause: error,
          }),
        );
        return;
      }
      if (typeof parsed !== 'object' || parsed === null || typeof (parsed as Update).update_id !== 'number') {
        reject(
          new TelegramWebhookRequestError({ status: 400, message: 'The body is not a Telegram update.' }),
        );
        return;
      }
      resolve(parsed as Update);
    });
    request.once('error', reject);
  });
}
