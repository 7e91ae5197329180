import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The browser tests have their own run: vitest.browser.config.ts (`npm run test:ui`).
    exclude: [...configDefaults.exclude, "test/ui/**"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // e2e tests spawn dist/; `npm ci` builds it (npm's `dependencies` script) and `pretest` rebuilds it.
    pool: "forks",
  },
});
