/**
 * Preloaded into the spawned server by the soak test (`node --expose-gc --import …`): on SIGUSR2,
 * run a full GC and report heap and RSS on stderr as one line, so a leak can be told apart from
 * memory V8 simply has not returned yet. Test-only; never part of the package.
 */
process.on("SIGUSR2", () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const m = process.memoryUsage();
  process.stderr.write(`gc-probe heapUsed=${m.heapUsed} rss=${m.rss} external=${m.external}\n`);
});
