import type { Intent } from '@nexus/protocol';
import type { ToolSet } from 'ai';

/**
 * Tools from outside the core (MCP servers, the scheduler) offered to the main run of one turn.
 * The provider decides who gets what (an owner-only default lives in the gateway); it must return
 * at once: whatever it needs to connect to happens in the background. Subagents do not get them.
 */
export type OutsideTools = (turn: { intent: Intent; conversationKey: string }) => ToolSet | undefined;
