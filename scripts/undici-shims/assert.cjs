/**
 * `node:assert` as undici uses it: only `assert(value[, message])`, on its own invariants.
 * The bundle gives undici this instead (scripts/build.mjs): loading node:assert costs ~6 ms of the
 * first request (its AssertionError pulls in the terminal colour support), for checks that never
 * fail in a working undici.
 */
function assert(value, message) {
  if (!value) throw new Error(`undici internal check failed${message ? `: ${message}` : ""}`);
}
module.exports = assert;
module.exports.ok = assert;
