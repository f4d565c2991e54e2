import {
  AISDKError,
  APICallError,
  EmptyResponseBodyError,
  InvalidPromptError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  LoadSettingError,
  NoContentGeneratedError,
  NoSuchModelError,
  TypeValidationError,
  UnsupportedFunctionalityError,
} from 'ai';

import { isThreadError, type ThreadError } from './thread-error-record.ts';

/** The AI SDK's errors a provider call can throw or stream, by name: rebuilt as themselves. */
const AI_SDK_ERRORS: Record<string, new (options: never) => Error> = {
  AI_APICallError: APICallError,
  AI_EmptyResponseBodyError: EmptyResponseBodyError,
  AI_InvalidPromptError: InvalidPromptError,
  AI_InvalidResponseDataError: InvalidResponseDataError,
  AI_JSONParseError: JSONParseError,
  AI_LoadAPIKeyError: LoadAPIKeyError,
  AI_LoadSettingError: LoadSettingError,
  AI_NoContentGeneratedError: NoContentGeneratedError,
  AI_NoSuchModelError: NoSuchModelError,
  AI_TypeValidationError: TypeValidationError,
  AI_UnsupportedFunctionalityError: UnsupportedFunctionalityError,
};

/** JavaScript's own error classes, by name. */
const NATIVE_ERRORS: Record<string, new (message: string) => Error> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
};

/** The error a ThreadError describes, rebuilt: the AI SDK's class, a native one or a DOMException. */
export function fromThreadError(value: unknown): unknown {
  if (!isThreadError(value)) return value;
  const cause = 'cause' in value ? fromThreadError(value.cause) : undefined;
  const fields: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value.fields)) fields[key] = fromThreadError(field);
  const error = rebuild(value, fields, cause);
  // The constructors compose some messages themselves; keep the one the other thread saw.
  Object.defineProperty(error, 'message', { value: value.message, writable: true, configurable: true });
  if (value.stack !== undefined)
    Object.defineProperty(error, 'stack', { value: value.stack, writable: true, configurable: true });
  return error;
}

function rebuild(value: ThreadError, fields: Record<string, unknown>, cause: unknown): Error {
  const aiClass = AI_SDK_ERRORS[value.name];
  if (aiClass) return new aiClass({ ...fields, message: value.message, cause } as never);
  if (value.name.startsWith('AI_')) {
    // An AI SDK error without a class here: still an AISDKError, with its name and fields.
    return Object.assign(new AISDKError({ name: value.name, message: value.message, cause }), fields);
  }
  const nativeClass = NATIVE_ERRORS[value.name];
  const error: Error = nativeClass
    ? new nativeClass(value.message)
    : value.name === 'AbortError' || value.name === 'TimeoutError'
      ? new DOMException(value.message, value.name)
      : Object.assign(new Error(value.message), { name: value.name });
  if ('cause' in value)
    Object.defineProperty(error, 'cause', { value: cause, writable: true, configurable: true });
  return Object.assign(error, fields);
}
