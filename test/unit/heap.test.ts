/**
 * src/main/heap.ts's choices: where the heap settings apply (stdio serving only) and which of the
 * user's own node flags they leave alone. What the settings do to V8's heap is a figure, not a
 * test (it varies with the machine's load): `node bench/sections/heap-growth.mjs` measures it.
 */
import { describe, expect, it } from "vitest";
import { servesOneClient, userSetHeapGrowth, userSizedYoungGeneration } from "../../src/main/heap.js";

describe("heap settings", () => {
  it("apply to stdio serving only (HTTP keeps V8's defaults for throughput)", () => {
    expect(servesOneClient([])).toBe(true);
    expect(servesOneClient(["--sandbox", "--read-only"])).toBe(true);
    expect(servesOneClient(["--sandbox", "--http", "--port", "0"])).toBe(false);
    expect(servesOneClient(["sandbox", "--port", "4000"])).toBe(false);
  });

  it("recognise the user's own settings on the command line and in NODE_OPTIONS", () => {
    expect(userSizedYoungGeneration([], undefined)).toBe(false);
    expect(userSizedYoungGeneration(["--enable-source-maps"], "--max-old-space-size=512")).toBe(false);
    expect(userSizedYoungGeneration(["--max-semi-space-size=4"], undefined)).toBe(true);
    expect(userSizedYoungGeneration(["--semi-space-growth-factor=2"], undefined)).toBe(true);
    expect(userSizedYoungGeneration([], "--min-semi-space-size=2 --max-old-space-size=512")).toBe(true);
    expect(userSetHeapGrowth(["--max-old-space-size=512"], undefined)).toBe(false);
    expect(userSetHeapGrowth(["--heap-growing-percent=100"], undefined)).toBe(true);
  });
});
