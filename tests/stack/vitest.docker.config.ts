import { defineConfig } from 'vitest/config';

// `pnpm test:stack` only: the default docker-compose stack, one file, its steps in order.
export default defineConfig({
  test: {
    include: ['tests/stack/**/*.docker.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    sequence: { concurrent: false },
    bail: 1,
  },
});
