import { type Agent, createAgent } from '@nexus/core';
import type { Logger } from '@nexus/protocol';
import type { LanguageModel } from 'ai';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { createLanguageModel, NOT_CONFIGURED_MESSAGE } from './create-language-model.ts';

/**
 * The chat model and the agent around it, as every role builds them: without a provider the agent
 * still answers, with the set-up instructions, and the log says so once.
 */
export async function createConfiguredAgent(
  config: GatewayConfig,
  logger: Logger,
  options: { fetch?: typeof globalThis.fetch } = {},
): Promise<{ model: LanguageModel | undefined; agent: Agent }> {
  const model = await createLanguageModel(config.model, { ...options, logger });
  if (!model) logger.warn({ setup: NOT_CONFIGURED_MESSAGE }, 'no model provider configured');
  else
    logger.info({ provider: config.model.provider, model: config.model.name }, 'model provider configured');
  const agent = createAgent({
    ...(model ? { model } : {}),
    systemPrompt: config.model.systemPrompt,
    maxSteps: config.model.maxSteps,
    timeoutMs: config.model.timeoutMs,
    notConfiguredMessage: NOT_CONFIGURED_MESSAGE,
    logger,
  });
  return { model, agent };
}
