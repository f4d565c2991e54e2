/** Span names core opens, as documented in docs/observability.md. */
export const SPAN = {
  intake: 'nexus.intake',
  access: 'nexus.access',
  turn: 'nexus.turn',
  memoryStep: 'nexus.memory_step',
  delivery: 'nexus.delivery',
} as const;
