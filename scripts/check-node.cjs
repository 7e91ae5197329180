// The first step of `npm run build` (so of `npm ci`, whose `dependencies` script builds): on a
// Node.js older than the server supports, stop with one line naming the version needed instead of
// a stack trace from a later step. Written for any Node.js (no dependency, no modern syntax); keep
// MINIMUM equal to src/main/node-version.ts (test/unit/node-version.test.ts checks it). Not an
// install script: those would run for every consumer of the package, this runs in the clone only.
var MINIMUM = "20.19.0";
var have = process.versions.node.split(".").map(Number);
var need = MINIMUM.split(".").map(Number);
var older = false;
var i;
for (i = 0; i < 3; i++) {
  if (have[i] > need[i]) break;
  if (have[i] < need[i]) {
    older = true;
    break;
  }
}
if (older) {
  process.stderr.write(
    "maintenance-mcp needs Node.js " +
      MINIMUM +
      " or newer; this is Node.js " +
      process.versions.node +
      ". Install a current LTS from https://nodejs.org and try again.\n",
  );
  process.exit(1);
}
