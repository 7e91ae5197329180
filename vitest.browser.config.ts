import { defineConfig } from "vitest/config";

/**
 * The browser tests (test/ui/): the MCP App view in Debian's Chromium. Their own run
 * (`npm run test:ui`) keeps the main suite fast; `.ci/run` runs both.
 */
export default defineConfig({
  test: {
    include: ["test/ui/**/*.test.ts"],
    // The servers' review history in a directory of the run, not ~/.local/state (test/global-setup.ts).
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One Chromium at a time: the machine's two cores are shared.
    fileParallelism: false,
  },
});
