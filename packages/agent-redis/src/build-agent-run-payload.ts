import type { AgentRunOptions } from '@nexus/core';
import type { AgentRunPayload } from './agent-run-protocol.ts';
import { describeTools } from './gateway-tools.ts';

/** Everything a worker needs to run one turn, as the JSON an `agent.run` job carries. */
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
    ...(runOptions.userImages?.length
      ? {
          userImages: runOptions.userImages.map((image) => ({
            base64: Buffer.from(image.bytes).toString('base64'),
            mediaType: image.mediaType,
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
