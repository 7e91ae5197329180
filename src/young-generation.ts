/**
 * Holds V8's young generation at its starting size. IMPORTANT: src/bin.ts calls it right after the
 * Node version check, before the server's modules load (loading them grows it otherwise). The server's garbage dies young (one page
 * parsed, one result written, per call); by default V8 doubles the young generation whenever
 * enough objects survive a scavenge, up to 2 x 16 MiB on 64-bit, and never gives it back while
 * calls keep coming. That memory is resident and buys nothing here: held small, the RSS after
 * 1,000 calls fell from 120 to 96 MiB with the same per-call time (bench section 3; numbers in
 * docs/quality.md) and the same throughput over HTTP at 32 clients. A user who sizes the young
 * generation themselves (a node flag, or --max/--min-semi-space-size in NODE_OPTIONS) keeps it.
 */
import { setFlagsFromString } from "node:v8";

const USER_SETTINGS = /--(max|min)-semi-space-size|--semi-space-growth-factor/;

/** Whether the user already chose a young-generation size (a node flag or NODE_OPTIONS). */
export function userSizedYoungGeneration(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): boolean {
  return execArgv.some((arg) => USER_SETTINGS.test(arg)) || USER_SETTINGS.test(nodeOptions ?? "");
}

/**
 * Stop the young generation from growing, unless the user sized it. V8 reads this factor each time
 * it would grow the young generation, so setting it after start works (checked on Node 20 and 22
 * by test/e2e/young-generation.test.ts).
 */
export function holdYoungGeneration(): void {
  if (!userSizedYoungGeneration(process.execArgv, process.env.NODE_OPTIONS)) {
    setFlagsFromString("--semi-space-growth-factor=1");
  }
}
