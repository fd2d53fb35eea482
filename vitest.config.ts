import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

// Vitest's default is one worker fewer than the machine's cores: one worker on CI's two-core machines, where the
// unit files (CPU-bound) then ran one by one. They take two at least. The e2e files run after them
// (`groupOrder`), two at a time as well: each starts the real OpenCode in its own sandbox (own HOME, XDG dirs, store
// and mock model on a free port) and spends most of its time waiting on it.
const WORKERS = Math.max(2, availableParallelism() - 1)

// Every test file belongs to one project, so a file named on the command line runs once. The fault suite
// (`npm run test:faults`, which sets MAGIC_CONTEXT_FAULT_SUITE) runs its fast probes, otherwise in `unit` and `e2e`,
// in the `faults` project with the slow ones; without it `faults` holds only the slow ones.
const FAULT_SUITE = process.env["MAGIC_CONTEXT_FAULT_SUITE"] === "1"
const FAULT_FILES = FAULT_SUITE
  ? ["test/faults/**/*.test.ts", "test/e2e/faults/**/*.test.ts"]
  : ["test/faults/**/*.slow.test.ts", "test/e2e/faults/**/*.slow.test.ts"]

export default defineConfig({
  test: {
    maxWorkers: WORKERS,
    projects: [
      {
        test: {
          name: "unit",
          sequence: { groupOrder: 0 },
          // The unit files share each worker's module graph instead of importing it afresh per file, which halves
          // their time. A unit file leaves no state behind: one that fakes a module imports it afresh and restores it
          // (test/store/driver-probe.test.ts), stubbed env and timers are restored after each test.
          isolate: false,
          include: ["test/**/*.test.ts"],
          // `*.slow.test.ts` (the slow part of the fault suite) runs only in `npm run test:faults`, `*.full.test.ts`
          // only in `npm run test:full`.
          exclude: ["**/node_modules/**", "test/e2e/**", "test/**/*.slow.test.ts", "test/**/*.full.test.ts"],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "e2e",
          sequence: { groupOrder: 1 },
          include: ["test/e2e/**/*.test.ts"],
          exclude: ["**/node_modules/**", "test/e2e/**/*.slow.test.ts"],
          testTimeout: 240_000,
          hookTimeout: 240_000,
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
          // The full gates, too long for every change (`npm run test:full`, run by CI after the slow end-to-end files).
          name: "full",
          include: ["test/**/*.full.test.ts"],
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          // The slow fault probes; under `npm run test:faults` the whole fault suite (the fast probes are in `npm test`).
          name: "faults",
          include: FAULT_FILES,
          testTimeout: 600_000,
          hookTimeout: 240_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
