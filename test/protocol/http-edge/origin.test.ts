import { describe, expect, it } from "vitest";
import { foreignReason, hostnameOf, isLoopbackHost } from "../../../src/mcp/transports/http/origin.js";

describe("HTTP edge step 1: Host and Origin", () => {
  it.each([
    ["localhost", true],
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["[::1]", true],
    ["LOCALHOST", true],
    ["0.0.0.0", false],
    ["evil.example", false],
  ])("isLoopbackHost(%s) is %s", (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });

  it("reads the host name of a Host header, IPv6 included", () => {
    expect(hostnameOf("[::1]:3333")).toBe("[::1]");
    expect(hostnameOf("mcp.example.com:443")).toBe("mcp.example.com");
    expect(hostnameOf("")).toBe("");
  });

  it.each([
    [{ host: "127.0.0.1:3333" }, true, undefined],
    [{ host: "127.0.0.1:3333", origin: "http://localhost:6274" }, true, undefined],
    [{ host: "evil.example" }, true, 'Forbidden: Host "evil.example" is not allowed for a loopback server'],
    [
      { host: "127.0.0.1:3333", origin: "https://evil.example" },
      true,
      'Forbidden: Origin "https://evil.example" is not allowed',
    ],
    [{ host: "mcp.example.com", origin: "https://mcp.example.com" }, false, undefined],
    [
      { host: "mcp.example.com", origin: "https://other.example" },
      false,
      'Forbidden: Origin "https://other.example" is not allowed',
    ],
    [{ host: "mcp.example.com", origin: "not a url" }, false, 'Forbidden: Origin "not a url" is not allowed'],
  ])("%j (loopback bind %s) → %s", (headers, loopbackBind, reason) => {
    expect(foreignReason(headers, loopbackBind)).toBe(reason);
  });
});
