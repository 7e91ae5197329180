/**
 * Resume tokens are sealed (interface.md §9b): HMAC-SHA256 with the process's key, or MMS_RESUME_KEY
 * shared by replicas; a token that fails the check or holds a field out of range is invalid input
 * naming `resume`. And a review's "resets at" shows its date when not today.
 */
import { describe, expect, it } from "vitest";
import { clockTime } from "../../../src/domain/budget-query.js";
import { TOKEN_WINDOW_MAX, TokenSeal } from "../../../src/domain/review/snapshots.js";
import { UserInputError } from "../../../src/errors/api-error.js";

const body = {
  v: 1 as const,
  t: "tenant-tag",
  k: "key-tag",
  w: "since all",
  s: "walk-1",
  x: 1_800_000_000_000,
};
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UserInputError);
    expect((e as UserInputError).details).toMatchObject({ field: "resume" });
    return (e as UserInputError).message;
  }
  throw new Error("expected a refusal");
};

describe("TokenSeal", () => {
  it("opens what it sealed; a replica with the same MMS_RESUME_KEY too; another key refuses", () => {
    const key = "shared-resume-key-0123456789-abcdefgh";
    const token = new TokenSeal(key).seal(body);
    expect(new TokenSeal(key).open(token)).toEqual(body);
    expect(refusal(() => new TokenSeal().open(token))).toMatch(/^resume: not a token this server issued/);
  });

  it("refuses an altered body, a missing or extra seal, and anything over 1,024 characters", () => {
    const seal = new TokenSeal();
    const token = seal.seal(body);
    const [text, mac] = token.split(".");
    const other = Buffer.from(JSON.stringify({ ...body, x: 1e300 })).toString("base64url");
    for (const bad of [`${other}.${mac}`, text!, `${token}.x`, `${"A".repeat(2_000)}.${mac}`, ""])
      expect(refusal(() => seal.open(bad))).toMatch(/^resume: /);
  });

  it("refuses fields out of range even under a good seal (a leaked key cannot crash the server)", () => {
    const seal = new TokenSeal();
    for (const forged of [
      { ...body, x: 1e300 },
      { ...body, x: -1 },
      { ...body, x: 1.5 },
      { ...body, w: "W".repeat(TOKEN_WINDOW_MAX + 1) },
      { ...body, v: 2 },
    ])
      expect(refusal(() => seal.open(seal.seal(forged as typeof body)))).toMatch(/out of range/);
  });
});

describe("clockTime", () => {
  const now = new Date("2026-11-28T15:00:00Z");
  it("is the time alone today, the date and time another day", () => {
    expect(clockTime(Date.parse("2026-11-28T15:20:17Z"), now)).toBe("15:20:17Z");
    expect(clockTime(Date.parse("2026-11-29T00:04:10Z"), now)).toBe("2026-11-29T00:04:10Z");
    expect(clockTime(Date.parse("2058-03-01T15:20:17Z"), now)).toBe("2058-03-01T15:20:17Z");
  });
});
