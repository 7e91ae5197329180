/**
 * The Node.js versions this server supports (package.json `engines`, kept equal by a unit
 * test). Older ones fail late and obscurely (Node 18: `File is not defined` inside undici on
 * the first call), so the binary checks first and says which version it needs.
 */

/** The oldest supported Node.js version. */
export const MIN_NODE = "20.19.0";

function parts(version: string): number[] {
  return version
    .replace(/^v/, "")
    .split(/[.-]/)
    .slice(0, 3)
    .map((p) => Number.parseInt(p, 10) || 0);
}

/** One line naming the version needed, or undefined when `version` (e.g. "18.20.4") is supported. */
export function nodeVersionProblem(version: string, minimum: string = MIN_NODE): string | undefined {
  const have = parts(version);
  const need = parts(minimum);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > (need[i] ?? 0)) return undefined;
    if ((have[i] ?? 0) < (need[i] ?? 0)) {
      return `maintenance-mcp needs Node.js ${minimum} or newer; this is Node.js ${version.replace(/^v/, "")}. Install a current LTS from https://nodejs.org and try again.`;
    }
  }
  return undefined;
}
