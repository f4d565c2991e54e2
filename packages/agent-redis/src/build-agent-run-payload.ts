import type { AgentRunOptions } from '@nexus/core';
import { type AgentRunPayload, imageRef } from './agent-run-protocol.ts';
import { describeTools } from './gateway-tools.ts';

/**
 * Everything a worker needs to run one turn, as the JSON an `agent.run` job carries, except the
 * bytes of images: those stay with the gateway until the worker asks (see agent-run-protocol.ts).
 */
export async function buildAgentRunPayload(
  runOptions: AgentRunOptions,
  addressing: { turnId: string; replyTo: string; deadlineAt: number },
): Promise<AgentRunPayload> {
  return {
    v: 1,
    ...addressing,
    ...(runOptions.system !== undefined ? { system: runOptions.system } : {}),
    ...(runOptions.systemContext ? { systemContext: runOptions.systemContext } : {}),
    history: runOptions.history as unknown as AgentRunPayload['history'],
    userText: runOptions.userText,
    ...(runOptions.userDocuments?.length ? { userDocuments: [...runOptions.userDocuments] } : {}),
    // References only: the worker fetches the bytes from this gateway (`media-request`).
    ...(runOptions.userImages?.length
      ? {
          userImages: runOptions.userImages.map((image, index) => ({
            ref: imageRef(index),
            mediaType: image.mediaType,
            byteLength: image.bytes.byteLength,
          })),
        }
      : {}),
    ...(runOptions.userId !== undefined ? { userId: runOptions.userId } : {}),
    tools: await describeTools(runOptions.tools),
    ...(runOptions.budget
      ? {
          budget: {
            id: runOptions.budget.id,
            channel: runOptions.budget.channel,
            ...runOptions.budget.limits,
          },
        }
      : {}),
  };
}
