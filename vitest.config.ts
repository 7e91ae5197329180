import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // e2e tests spawn dist/; `npm ci` builds it (npm's `dependencies` script) and `pretest` rebuilds it.
    pool: "forks",
  },
});
