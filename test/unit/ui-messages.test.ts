/**
 * The view's message catalogue (src/ui/messages/, pure: no DOM): which language a host locale
 * gets, plural forms through Intl.PluralRules, every Spanish and Portuguese message really
 * translated, and the snapshot line's time and age (src/ui/format.ts). Typecheck already fails on a
 * missing key; these pin what a type cannot: that the words differ, and the forms are right.
 */
import { describe, expect, it } from "vitest";
import { createFormat } from "../../src/ui/format.js";
import { createSay, languageOf, snapshotSeconds } from "../../src/ui/messages/catalogue.js";
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
  // The server's notes take their params by name: any name gives "A" as shown and 3 as sent.
  if (typeof value === "function" && path.startsWith("note.")) {
    const any = <T>(x: T) => new Proxy({}, { get: () => x, has: () => true });
    return [[path, String((value as (p: unknown, v: unknown) => string)(any("A"), any(3)))]];
  }
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

describe("the snapshot line: its time in the host's zone, as people write it, and its age", () => {
  const now = Date.parse("2026-11-26T10:43:42Z");
  const line = (locale: string, zone: string, asOf: string) => {
    const fmt = createFormat(locale, zone);
    const time = fmt.instant(asOf, now);
    const sameDay = time === fmt.instant(asOf, Date.parse(asOf));
    return messagesFor(locale)
      .asOf(time, snapshotSeconds(asOf, now), sameDay)
      .replace(/[\u00a0\u202f]/g, " ");
  };

  it.each([
    ["en-US", "UTC", "2026-11-26T10:42:07Z", "As of 10:42 AM, 95 s ago"],
    ["en-US", "America/New_York", "2026-11-26T10:42:07Z", "As of 5:42 AM, 95 s ago"],
    ["es-CL", "America/Santiago", "2026-11-26T10:42:07.500Z", "Datos de las 7:42 a. m., hace 94 s"],
    ["es-MX", "America/Mexico_City", "2026-11-26T10:42:07Z", "Datos de las 4:42 a.m., hace 95 s"],
    ["pt-BR", "America/Sao_Paulo", "2026-11-26T10:38:42Z", "Dados das 07:38, há 5 min"],
    ["en-GB", "Europe/London", "2026-11-26T07:43:42+00:00", "As of 07:43, 3 h ago"],
    // Another day in the host's zone: the date as well, "del"/"de" rather than "de las"/"das".
    ["en-US", "UTC", "2026-11-25T10:43:42Z", "As of Nov 25, 2026, 10:43 AM, 24 h ago"],
    ["es-CL", "America/Santiago", "2026-11-25T10:43:42Z", "Datos del 25-11-2026, 7:43 a. m., hace 24 h"],
    ["pt-BR", "America/Sao_Paulo", "2026-11-25T10:43:42Z", "Dados de 25 de nov. de 2026, 07:43, há 24 h"],
    // Just after midnight UTC is still the 25th in Santiago: a day is the host's day.
    ["es-CL", "America/Santiago", "2026-11-26T01:00:00Z", "Datos del 25-11-2026, 10:00 p. m., hace 9 h"],
    // A host clock behind the server's: never "in the future".
    ["en-US", "UTC", "2026-11-26T10:43:50Z", "As of 10:43 AM, 0 s ago"],
  ])("%s in %s, %s", (locale, zone, asOf, words) => {
    expect(line(locale, zone, asOf)).toBe(words);
  });

  it("never shows an ISO instant or a Z", () => {
    for (const locale of ["en-US", "es-CL", "pt-BR"]) {
      expect(line(locale, "UTC", "2026-11-26T10:42:07Z")).not.toMatch(/\d{2}:\d{2}:\d{2}|Z\b|T\d/);
    }
  });
});

describe("times in the host's zone, the zone named as people say it", () => {
  it.each([
    ["en-US", "America/New_York", "Eastern Time"],
    ["es-CL", "America/Santiago", "hora de Chile"],
    ["pt-BR", "America/Sao_Paulo", "Horário Padrão de Brasília"],
    ["en-US", "UTC", "UTC"],
    ["es-CL", "Etc/UTC", "UTC"],
  ])("%s in %s: %s", (locale, zone, name) => {
    expect(createFormat(locale, zone).zoneName()).toBe(name);
  });

  it("falls back to UTC for a zone the platform does not know, and formats dates as calendar dates", () => {
    const fmt = createFormat("es-CL", "Mars/Olympus_Mons");
    expect(fmt.timeZone).toMatch(/^(UTC|Etc\/UTC|[A-Z][a-z]+\/\w+)$/);
    // A date is the same day everywhere: 2026-11-28 is the 28th in Santiago too.
    expect(createFormat("es-CL", "America/Santiago").date("2026-11-28")).toBe("28-11-2026");
    expect(createFormat("pt-BR", "America/Sao_Paulo").instant("2026-11-28")).toBe("28 de nov. de 2026");
  });

  it.each([
    ["en-US", "America/New_York", "Nov 27, 2026"],
    ["es-CL", "America/Santiago", "27-11-2026"],
    ["en-US", "UTC", "Nov 28, 2026"],
    ["en-US", "Asia/Tokyo", "Nov 28, 2026"],
  ])("today (interface.md §6g): at 02:30 UTC on Nov 28, %s in %s reads %s", (locale, zone, day) => {
    expect(createFormat(locale, zone).today(Date.parse("2026-11-28T02:30:00Z"))).toBe(day);
  });
});
