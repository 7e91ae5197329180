/**
 * The view words every note code the server sends (interface.md §8b): its list in src/ui/contract.ts
 * (the view may import only itself) is the server's list in src/domain/notes.ts, and each language
 * gives a message for each. Before the server's list is merged (branch i35results) the comparison is
 * skipped; the catalogue's completeness is typechecked either way.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NOTE_CODES } from "../../src/ui/contract.js";
import { messagesFor } from "../../src/ui/messages/index.js";

const SERVER_NOTES = "src/domain/notes.ts";

describe("the view's note codes", () => {
  it.skipIf(!existsSync(SERVER_NOTES))("are the server's, neither more nor fewer", async () => {
    const server = (await import(/* @vite-ignore */ `../../${SERVER_NOTES}`)) as {
      NOTE_CODES: readonly string[];
    };
    expect([...NOTE_CODES].sort()).toEqual([...server.NOTE_CODES].sort());
  });

  it.each(["en", "es-CL", "pt-BR"])("%s words each of them", (locale) => {
    const t = messagesFor(locale);
    expect(Object.keys(t.note).sort()).toEqual([...NOTE_CODES].sort());
  });
});
