import type { Logger } from '@nexus/protocol';
import { APICallError, type LanguageModel, wrapLanguageModel } from 'ai';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { chooseExtractionModel } from './choose-extraction-model.ts';
import { createLanguageModel } from './create-language-model.ts';

/**
 * The model memory extraction and summaries run on (`chooseExtractionModel`): the operator's
 * `NEXUS_EXTRACTION_MODEL`, else the chat model's cheaper sibling, else `chatModel` itself. A
 * sibling the provider answers "no such model" for (404, or a 400 naming the model as not found)
 * is dropped for the chat model on that call and every later one, logged once: a default must
 * never cost the person their memory. The operator's own choice is never replaced.
 */
export async function createExtractionModel(options: {
  config: GatewayConfig;
  chatModel: LanguageModel | undefined;
  logger: Logger;
  fetch?: typeof globalThis.fetch;
}): Promise<LanguageModel | undefined> {
  const { config, chatModel, logger } = options;
  const choice = chooseExtractionModel(config.model, config.memory.extractionModel);
  if (!chatModel || !choice) return chatModel;
  if (choice.name === config.model.name) return chatModel;
  const fetchOption = options.fetch ? { fetch: options.fetch } : {};
  const cheaper = await createLanguageModel(
    { ...config.model, name: choice.name },
    { ...fetchOption, logger },
  );
  if (!cheaper) return chatModel;
  if (!choice.fallback || typeof cheaper === 'string' || typeof chatModel === 'string') return cheaper;
  const chat = wrapLanguageModel({ model: chatModel, middleware: [] });
  let useChat = false;
  const fallBack = (error: unknown): boolean => {
    if (!isModelNotFound(error)) return false;
    if (!useChat)
      logger.warn(
        {
          extractionModel: choice.name,
          chatModel: choice.fallback,
          status: (error as APICallError).statusCode,
        },
        'memory: the provider does not serve the cheaper extraction model; extraction uses the chat model (set NEXUS_EXTRACTION_MODEL to choose)',
      );
    useChat = true;
    return true;
  };
  return wrapLanguageModel({
    model: cheaper,
    middleware: {
      async wrapGenerate({ doGenerate, params }) {
        if (useChat) return chat.doGenerate(params);
        try {
          return await doGenerate();
        } catch (error) {
          if (!fallBack(error)) throw error;
          return chat.doGenerate(params);
        }
      },
      async wrapStream({ doStream, params }) {
        if (useChat) return chat.doStream(params);
        try {
          return await doStream();
        } catch (error) {
          if (!fallBack(error)) throw error;
          return chat.doStream(params);
        }
      },
    },
  });
}

/** The provider's "no such model": OpenAI's and Ollama's 404, Anthropic's 404 not_found_error, a 400 some proxies send. */
function isModelNotFound(error: unknown): boolean {
  if (!APICallError.isInstance(error)) return false;
  if (error.statusCode === 404) return true;
  return (
    error.statusCode === 400 &&
    /model/iu.test(error.responseBody ?? '') &&
    /not[ _]found|does not exist|unknown model|invalid model/iu.test(error.responseBody ?? '')
  );
}
