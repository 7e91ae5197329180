/** `npm pack` of this repository into a temporary folder, for the package and bundle tests. */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

export interface Packed {
  dir: string;
  tarball: string;
  /** Paths inside the tarball, relative to `package/`. */
  files: string[];
}

/** Pack the repository as published. dist/ is already built by `pretest`, so prepack is skipped. */
export function packRepo(): Packed {
  const dir = mkdtempSync(join(tmpdir(), "maintenance-mcp-pack-"));
  const out = execFileSync(NPM, ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [info] = JSON.parse(out.toString()) as { filename: string; files: { path: string }[] }[];
  return { dir, tarball: join(dir, info!.filename), files: info!.files.map((f) => f.path).sort() };
}
