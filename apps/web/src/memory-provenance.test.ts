import { describe, expect, it } from 'vitest';
import { provenanceOf } from './memory-provenance.ts';
import type { MemoryView } from './person-memory.ts';

const day = 86_400_000;
const now = Date.UTC(2026, 10, 27, 12);
const memory = (overrides: Partial<MemoryView>): MemoryView => ({
  id: 'm',
  content: 'Lives in Lisbon',
  category: 'fact',
  source: 'user_explicit',
  createdAt: now - 3 * day,
  updatedAt: now - 3 * day,
  ...overrides,
});

describe('provenanceOf', () => {
  it('says who said it, on which channel and when', () => {
    expect(provenanceOf(memory({ learnedOn: 'telegram' }), now)).toBe('You told me on Telegram, 3 days ago');
    expect(
      provenanceOf(
        memory({ learnedOn: 'web', source: 'inferred', createdAt: now - day, updatedAt: now - day }),
        now,
      ),
    ).toBe('I picked this up on the web chat, yesterday');
  });

  it('leaves out the channel when it is not known, and adds when it was last changed', () => {
    expect(provenanceOf(memory({ updatedAt: now - 5 * 60_000 }), now)).toBe(
      'You told me, 3 days ago · updated 5 minutes ago',
    );
    expect(provenanceOf(memory({ learnedOn: 'matrix' }), now)).toBe('You told me on matrix, 3 days ago');
  });
});
