import { describe, expect, it } from 'vitest';
import { estimatePromptTokens } from './estimate-prompt-tokens.ts';

describe('estimatePromptTokens', () => {
  it('counts text at four characters a token and each image or file part at 1,000', () => {
    const prompt = [
      { role: 'system', content: 'x'.repeat(400) },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'y'.repeat(200) },
          { type: 'file', mediaType: 'image/png', data: 'A'.repeat(4_000_000) },
          { type: 'file', mediaType: 'application/pdf', data: 'B'.repeat(10) },
        ],
      },
    ];
    expect(estimatePromptTokens(prompt)).toBe(100 + 50 + 2_000);
  });
});
