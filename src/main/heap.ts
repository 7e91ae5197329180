/**
 * Keeps the server's heap near what it uses. Its garbage dies young (one page parsed, one result
 * written, per call), yet V8's defaults size the heap for throughput: the young generation doubles
 * whenever enough survives a scavenge, up to 2 x 16 MiB, and the old generation may grow to up to
 * 4 x what survives a full collection before the next one. For a server that sits in the
 * background of a desktop that is resident memory buying nothing. Two settings, both read by V8
 * each time it sizes a generation, so setting them after start works (bench/sections/heap-growth.mjs
 * measures them on the Node it runs on):
 * - the young generation stays at its starting size (--semi-space-growth-factor=1);
 * - the old generation grows by half of what survived (--heap-growing-percent=50).
 * Measured side by side (docs/quality.md): over stdio, RSS after 1,000 to 8,000 calls flat at 82-84
 * MiB instead of 92-122 MiB, per-call time unchanged, a 400-budget review ~4 % slower. Only over
 * stdio (one client, one call at a time): with --http and 32 concurrent clients they cost a quarter
 * of the throughput (787-856 against 1,059-1,097 calls/s) for half the memory, a trade a host
 * makes itself with node flags. A user who sets either (a node flag, or a semi-space size in
 * NODE_OPTIONS) keeps their setting.
 */
import { setFlagsFromString } from "node:v8";

const YOUNG_SETTINGS = /--(max|min)-semi-space-size|--semi-space-growth-factor/;
const GROWTH_SETTINGS = /--heap-growing-percent/;

const userSet = (setting: RegExp, execArgv: readonly string[], nodeOptions: string | undefined) =>
  execArgv.some((arg) => setting.test(arg)) || setting.test(nodeOptions ?? "");

/** Whether the user already sized the young generation (a node flag or NODE_OPTIONS). */
export const userSizedYoungGeneration = (execArgv: readonly string[], nodeOptions: string | undefined) =>
  userSet(YOUNG_SETTINGS, execArgv, nodeOptions);

/** Whether the user already chose how the old generation grows. */
export const userSetHeapGrowth = (execArgv: readonly string[], nodeOptions: string | undefined) =>
  userSet(GROWTH_SETTINGS, execArgv, nodeOptions);

/** Whether the command line serves one client over stdio (not --http, not the `sandbox` command). */
export const servesOneClient = (argv: readonly string[]) => argv[0] !== "sandbox" && !argv.includes("--http");

/** Apply both settings, each unless the user chose it. IMPORTANT: src/bin.ts calls this before the server loads. */
export function keepHeapSmall(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): void {
  if (!userSizedYoungGeneration(execArgv, nodeOptions)) setFlagsFromString("--semi-space-growth-factor=1");
  if (!userSetHeapGrowth(execArgv, nodeOptions)) setFlagsFromString("--heap-growing-percent=50");
}
