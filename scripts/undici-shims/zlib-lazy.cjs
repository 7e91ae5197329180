/**
 * `node:zlib` as undici's fetch utilities (lib/web/fetch/util.js) get it: they require it when loaded
 * but use it only to decompress a fetch() body, which our Agent and `request` never do. The bundle
 * gives them this instead (scripts/build.mjs): zlib loads on first use, not inside the first upstream
 * request (~3.5 ms). Every property is zlib's own.
 */
let zlib;
module.exports = new Proxy(
  {},
  {
    get(_target, key) {
      zlib ??= require("node:zlib");
      return zlib[key];
    },
  },
);
