/**
 * The review history of the servers the tests run (interface.md §6e) goes to a directory of this run,
 * removed at its end: never the user's ~/.local/state, where it piled up run after run, read by the next.
 * Under libfaketime's start-at clock (FAKETIME="@2028-02-29 12:00:00", CONTRIBUTING.md "Clocks in
 * tests") every process the run starts, test workers and servers, goes on from the run's clock rather
 * than starting again at that date: one clock for everything in play.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "maintenance-mcp-test-state-"));
  process.env.XDG_STATE_HOME = dir;
  // Without it a second server process could be earlier than the first (two "mornings" in one second).
  if (process.env.FAKETIME?.startsWith("@")) process.env.FAKETIME_DONT_RESET ??= "1";
  return () => rmSync(dir, { recursive: true, force: true });
}
