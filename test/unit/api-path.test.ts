import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apiPath, encodeQueryComponent, parseBaseUrl, withQuery } from "../../src/client/api-path.js";
import { UserInputError } from "../../src/errors/api-error.js";

describe("apiPath", () => {
  it.each([
    ["A-01", "/w/A-01/x"],
    ["a/b", "/w/a%2Fb/x"],
    ["a?b", "/w/a%3Fb/x"],
    ["a#b", "/w/a%23b/x"],
    ["%2F", "/w/%252F/x"],
    ["../x", "/w/..%2Fx/x"],
    ["...", "/w/.../x"],
    ["a b+c", "/w/a%20b%2Bc/x"],
    [42, "/w/42/x"],
  ])("encodes %j as exactly one segment", (value, expected) => {
    expect(apiPath`/w/${value}/x`).toBe(expected);
  });

  it.each(["", ".", ".."])("rejects %j with a UserInputError", (value) => {
    expect(() => apiPath`/warehouse_entries_orders/${value}`).toThrow(UserInputError);
  });

  it("rejects non-finite numbers", () => {
    expect(() => apiPath`/x/${Number.NaN}`).toThrow(UserInputError);
  });

  it("never yields a dot segment or an extra segment, whatever the value (property)", () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        if (value === "" || value === "." || value === "..") return;
        const path = apiPath`/a/${value}/b`;
        const segments = path.split("/");
        expect(segments).toHaveLength(4);
        expect(decodeURIComponent(segments[2]!)).toBe(value);
        expect(path).not.toMatch(/[?#]/);
      }),
    );
  });
});

describe("withQuery", () => {
  it("encodes + as %2B and keeps : readable", () => {
    expect(
      withQuery("/wo_budget", [
        ["since", "2024-01-01T00:00:00+05"],
        ["until", "2024-01-31T23:59:59-03"],
      ]),
    ).toBe("/wo_budget?since=2024-01-01T00:00:00%2B05&until=2024-01-31T23:59:59-03");
  });
  it("skips undefined, encodes & = space and booleans", () => {
    expect(
      withQuery("/p", [
        ["a", undefined],
        ["b", "x&y=z w"],
        ["c", false],
        ["d", 0],
      ]),
    ).toBe("/p?b=x%26y%3Dz%20w&c=false&d=0");
    expect(withQuery("/p", [["a", undefined]])).toBe("/p");
  });
  it("round-trips any value through a standard decoder (property)", () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const path = withQuery("/p", [["v", value]]);
        expect(new URLSearchParams(path.slice(3)).get("v")).toBe(value);
        expect(encodeQueryComponent(value)).not.toMatch(/[+&#= ]/);
      }),
    );
  });
});

describe("parseBaseUrl", () => {
  it.each([
    ["https://api.example.com/api", { origin: "https://api.example.com", port: 443, prefix: "/api" }],
    ["http://example.com", { origin: "http://example.com", port: 80, prefix: "" }],
    ["http://127.0.0.1:8080/v/api/", { origin: "http://127.0.0.1:8080", port: 8080, prefix: "/v/api" }],
  ])("%s", (url, expected) => {
    expect(parseBaseUrl(url)).toMatchObject(expected);
  });
});
