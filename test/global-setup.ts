/**
 * The review history of the servers the tests run (interface.md §6e) goes to a directory of this run,
 * removed at its end: never the user's ~/.local/state, where it piled up run after run, read by the next.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "maintenance-mcp-test-state-"));
  process.env.XDG_STATE_HOME = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
