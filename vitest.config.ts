import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Two projects (CONTRIBUTING.md, "Tests"). `unit`: the folders whose tests run in-process (the sandbox and fakes
 * on loopback, the SDK client over the in-memory transport) and leave no global state behind; they share
 * worker threads and their module graph (no isolation), so zod, the SDK and our modules load once per worker,
 * not once per file. `e2e`: every other folder (e2e, quality, hosting, and any new one), each file in its
 * own child process: they spawn dist/, install tracing or metrics globally, or hold Redis.
 */
const UNIT = ["unit", "client", "sandbox", "tools", "protocol"].map(
  (folder) => `test/${folder}/**/*.test.ts`,
);
// The browser tests have their own run: vitest.browser.config.ts (`npm run test:ui`).
const EXCLUDE = [...configDefaults.exclude, "test/ui/**"];

export default defineConfig({
  test: {
    // XDG_STATE_HOME: a directory of the run (the servers' review history), removed after it.
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // vitest's default is one worker less than the cores: one on a 2-core machine. Most files wait on
    // loopback HTTP or on a child process, so two workers there fill the second core instead of idling.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // `npx vitest run --coverage`: what the in-process tests reach (dist/, spawned by e2e, is not counted).
    coverage: { provider: "v8", include: ["src/**", "tools/**"], reportsDirectory: "coverage" },
    projects: [
      {
        extends: true,
        test: { name: "unit", include: UNIT, exclude: EXCLUDE, pool: "threads", isolate: false },
      },
      {
        extends: true,
        // e2e tests spawn dist/; `npm ci` builds it (npm's `dependencies` script) and `pretest` rebuilds it.
        test: { name: "e2e", include: ["test/**/*.test.ts"], exclude: [...EXCLUDE, ...UNIT], pool: "forks" },
      },
    ],
  },
});
