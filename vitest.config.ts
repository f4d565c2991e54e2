import { defineConfig } from 'vitest/config';

// Two projects: `unit` (in-process, fast) and `integration` (real sockets, Redis, Chromium, subprocesses).
// Integration tests are named `*.int.test.ts`; both run in `pnpm test`. The Docker stack test
// (`*.docker.test.ts`) runs only in `pnpm test:stack` (tests/stack/vitest.docker.config.ts).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'tests/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/*.docker.test.ts', '**/node_modules/**'],
          testTimeout: 15_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: [
            'packages/*/src/**/*.int.test.ts',
            'apps/*/src/**/*.int.test.ts',
            'tests/**/*.int.test.ts',
          ],
          exclude: ['**/node_modules/**'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
