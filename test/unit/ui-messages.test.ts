/**
 * The view's message catalogue (src/ui/messages/, pure: no DOM): which language a host locale
 * gets, plural forms through Intl.PluralRules, every Spanish and Portuguese message really
 * translated, and the snapshot line's time and age (src/ui/format.ts). Typecheck already fails on a
 * missing key; these pin what a type cannot: that the words differ, and the forms are right.
 */
import { describe, expect, it } from "vitest";
import { createSay, languageOf, snapshotAge } from "../../src/ui/messages/catalogue.js";
import { en } from "../../src/ui/messages/en.js";
import { messagesFor } from "../../src/ui/messages/index.js";

describe("the language a host's locale gets", () => {
  it.each([
    ["en", "en"],
    ["en-US", "en"],
    ["es", "es"],
    ["es-CL", "es"],
    ["es-MX", "es"],
    ["es_419", "es"],
    ["ES-mx", "es"],
    ["pt", "pt"],
    ["pt-BR", "pt"],
    ["pt-PT", "pt"],
    ["fr", "en"],
    ["fr-CA", "en"],
    ["de-DE", "en"],
    ["", "en"],
    [undefined, "en"],
    ["est", "en"], // Estonian is not Spanish
    ["ptx", "en"],
    ["not a tag", "en"],
  ])("%j → %s", (locale, language) => {
    expect(languageOf(locale)).toBe(language);
  });

  it("speaks the catalogue's language with the locale's own digits", () => {
    expect(messagesFor("es-MX").reviewCounts(1234, 5)).toBe("Leídos 1,234 · coinciden 5 presupuestos");
    expect(messagesFor("es-CL").reviewCounts(1234, 5)).toBe("Leídos 1.234 · coinciden 5 presupuestos");
    expect(messagesFor("pt-BR").reviewCounts(1234, 1)).toBe("Lidos 1.234 · 1 orçamento corresponde");
    expect(messagesFor("fr").reviewCounts(1234, 2)).toBe("Scanned 1\u202f234 · matched 2 budgets");
  });
});

describe("plural forms (Intl.PluralRules)", () => {
  it.each([
    ["en", 0, "0 budgets"],
    ["en", 1, "1 budget"],
    ["en", 2, "2 budgets"],
    ["es", 1, "1 presupuesto"],
    ["es", 7, "7 presupuestos"],
    ["es", 1_000_000, "1.000.000 de presupuestos"],
    ["pt-BR", 0, "0 orçamentos"],
    ["pt-BR", 1, "1 orçamento"],
    ["pt-BR", 2, "2 orçamentos"],
    ["pt-BR", 1_000_000, "1.000.000 de orçamentos"],
  ] as const)("%s: %d → %s", (locale, n, words) => {
    expect(
      messagesFor(locale)
        .budgets(n)
        .replace(/\u00a0/g, " "),
    ).toBe(words);
  });

  it("uses the exact zero form when a language gives one, the category otherwise", () => {
    const say = createSay("pt-BR");
    expect(say.count(0, { "=0": "nenhum", one: "# um", other: "# vários" })).toBe("nenhum");
    expect(say.count(0, { one: "# um", other: "# vários" })).toBe("0 um");
    expect(say.count(3, { other: "# sempre" })).toBe("3 sempre");
  });

  it("says days and the oldest pending budget in each language", () => {
    expect(messagesFor("en").oldestPending(1)).toBe("oldest pending 1 day");
    expect(messagesFor("es").oldestPending(40)).toBe("pendiente más antiguo: 40 días");
    expect(messagesFor("pt-BR").oldestPending(1)).toBe("pendente mais antigo: 1 dia");
  });
});

/** Every message as text: strings as they are, functions called with sample figures, records walked. */
function leaves(value: unknown, path = ""): [string, string][] {
  if (typeof value === "string") return [[path, value]];
  if (typeof value === "function") {
    const fn = value as (...args: unknown[]) => unknown;
    return [[path, String(fn.length >= 2 ? fn("A", 3, 4) : fn(3))]];
  }
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
  }
  return [];
}

/** Words that are the same in every language: field names, codes, figures, the sandbox's name. */
const SAME_EVERYWHERE = new Set([
  "values.age.0-7",
  "values.age.8-30",
  "values.age.31-60",
  "values.age.61-90",
  "window.span",
  "filter.id", // "folio": the API's word
  "recordHeads.folio",
  "quotes.0",
  "quotes.1",
]);

describe("every message is translated", () => {
  const english = new Map(leaves(en(createSay("en"))));

  it.each(["es", "pt-BR"])("%s has every English message, none of them left in English", (locale) => {
    const translated = new Map(leaves(messagesFor(locale)));
    expect([...translated.keys()].sort()).toEqual([...english.keys()].sort());
    const untranslated = [...translated].filter(
      ([path, text]) => text === english.get(path) && !SAME_EVERYWHERE.has(path),
    );
    expect(untranslated).toEqual([]);
    for (const [path, text] of translated) expect(text.trim(), path).not.toBe("");
  });

  it("writes the trade's own words: presupuesto, orden de trabajo, centro de costo; orçamento, ordem de serviço, centro de custo", () => {
    const es = messagesFor("es-CL");
    expect([es.title, es.recordHeads.workOrder, es.keyHead.cost_center, es.statusChoices.pending]).toEqual([
      "Revisión de presupuestos",
      "Orden de trabajo",
      "Centro de costo",
      "Pendiente",
    ]);
    expect(es.keyHead.third_party).toBe("Tercero");
    const pt = messagesFor("pt-BR");
    expect([pt.title, pt.recordHeads.workOrder, pt.keyHead.cost_center, pt.statusChoices.pending]).toEqual([
      "Revisão de orçamentos",
      "Ordem de serviço",
      "Centro de custo",
      "Pendente",
    ]);
    expect(pt.keyHead.third_party).toBe("Terceiro");
  });
});

describe("the snapshot line (as of 10:42:07Z, 95 s ago)", () => {
  const now = Date.parse("2026-11-26T10:43:42Z");

  it.each([
    ["en", "2026-11-26T10:42:07Z", "As of 10:42:07Z, 95 s ago"],
    ["es-MX", "2026-11-26T10:42:07.500Z", "Datos de las 10:42:07Z, hace 94 s"],
    ["pt-BR", "2026-11-26T10:38:42Z", "Dados das 10:38:42Z, há 5 min"],
    ["en", "2026-11-26T07:43:42+00:00", "As of 07:43:42Z, 3 h ago"],
    ["en", "2026-11-25T23:00:00-01:00", "As of 00:00:00Z, 10 h ago"],
    ["en", "2026-11-25T10:43:42Z", "As of 2026-11-25 10:43:42Z, 24 h ago"],
    // A host clock behind the server's: never "in the future".
    ["en", "2026-11-26T10:43:50Z", "As of 10:43:50Z, 0 s ago"],
  ])("%s, %s", (locale, asOf, line) => {
    const { time, seconds } = snapshotAge(asOf, now);
    expect(messagesFor(locale).asOf(time, seconds)).toBe(line);
  });
});
