export { hashedEmbedding } from './hashed-embedding.ts';
export {
  type RecordedModelRequest,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  startScriptedModelServer,
} from './scripted-model-server.ts';
export type {
  ChatCompletionContentPart,
  ChatCompletionMessage,
  ChatCompletionRequest,
  ScriptedResponder,
  ScriptedResponse,
  ScriptedToolCall,
} from './scripted-response.ts';
export { echoResponse, messageText } from './scripted-response.ts';
export type { RecordedTranscription } from './transcription-route.ts';
