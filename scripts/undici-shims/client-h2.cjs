/**
 * undici's HTTP/2 client, left out of the bundle (scripts/build.mjs): our Agent never offers h2
 * (undici's `allowH2` is off), so undici never calls it, and loading it costs ~8 ms of the first
 * request (node:http2 and node:tls). Called anyway, it says so instead of misbehaving.
 */
module.exports = function connectH2() {
  throw new Error("HTTP/2 is not built into maintenance-mcp's HTTP client (allowH2 is off)");
};
