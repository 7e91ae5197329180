/**
 * `npm start` stopped by npm's PID (issue 22, point 7): npm forwards the signal to the script's
 * shell, not to the server, so the server watches its parent (src/main/exit.ts, parentGone) and
 * stops with it instead of running on, orphaned, holding its port.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { cleanEnv } from "./bin.js";
import { NPM } from "./pack.js";

/** Resolves with the URL the server prints once it listens. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`npm start did not listen in time: ${output}`)), 30_000);
    const onData = (d: Buffer) => {
      output += d;
      const m = /listening on (http:\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
  });
}

/** Whether anything still answers at `url` (the server's /healthz). */
const answers = (url: string) =>
  fetch(url).then(
    () => true,
    () => false,
  );

describe("npm start", () => {
  it("does not outlive npm when npm's PID is killed", async () => {
    const npm = spawn(NPM, ["start", "--", "--port", "0"], {
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const healthz = new URL("/healthz", await listening(npm)).href;
    expect(await answers(healthz)).toBe(true);
    const exited = once(npm, "exit");
    npm.kill("SIGTERM");
    await exited;
    const deadline = Date.now() + 5_000;
    while ((await answers(healthz)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await answers(healthz)).toBe(false);
  }, 60_000);
});
