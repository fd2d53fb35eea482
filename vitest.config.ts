import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

// Vitest's default is one worker fewer than the machine's cores: one worker on CI's two-core machines, where the
// unit files (CPU-bound, isolated) then ran one by one. They take two at least; the e2e files still run one at a
// time, after them (`groupOrder`), each starting the real OpenCode.
const WORKERS = Math.max(2, availableParallelism() - 1)

export default defineConfig({
  test: {
    maxWorkers: WORKERS,
    projects: [
      {
        test: {
          name: "unit",
          sequence: { groupOrder: 0 },
          include: ["test/**/*.test.ts"],
          // `*.slow.test.ts` (the slow part of the fault suite) runs only in `npm run test:faults`.
          exclude: ["test/e2e/**", "test/**/*.slow.test.ts"],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "e2e",
          sequence: { groupOrder: 1 },
          include: ["test/e2e/**/*.test.ts"],
          exclude: ["test/e2e/**/*.slow.test.ts"],
          testTimeout: 240_000,
          hookTimeout: 240_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // The end-to-end scenarios that take longest (`npm run test:slow-e2e`, run by CI after `npm test`).
          name: "slow-e2e",
          include: ["test/e2e/*.slow.test.ts"],
          testTimeout: 240_000,
          hookTimeout: 240_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // The whole fault suite: the fast probes (also in `npm test`) and the slow ones.
          name: "faults",
          include: ["test/faults/**/*.test.ts", "test/e2e/faults/**/*.test.ts"],
          testTimeout: 600_000,
          hookTimeout: 240_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
