import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          // `*.slow.test.ts` (the slow part of the fault suite) runs only in `npm run test:faults`.
          exclude: ["test/e2e/**", "test/**/*.slow.test.ts"],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          exclude: ["test/e2e/**/*.slow.test.ts"],
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
