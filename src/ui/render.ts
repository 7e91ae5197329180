/**
 * Draws a Review (contract.ts) into the page in the host's language: the window and completeness,
 * totals per currency, one bar chart per currency by the first group key, the pending queue by age,
 * or a list's largest budgets. Every chart is a real table (caption, header cells, figures as text)
 * whose bars are decoration, so the table is the chart's text equivalent. Upstream text only ever
 * enters the page as text nodes, each isolated for bidirectional display (`<bdi>`) and free to wrap,
 * so a right-to-left override or a 5,000-character name cannot reorder or push away our figures.
 */
import { renderChanges } from "./changes-view.js";
import type { Bar, BudgetRow, Filter, GroupKey, Note, NoteCode, Period, Review } from "./contract.js";
import type { Format } from "./format.js";
import { type Messages, snapshotSeconds } from "./messages/index.js";

/** The host's locale: its number formats and its words. */
export interface Speech {
  fmt: Format;
  t: Messages;
}
type Child = Node | string | null | undefined | false;

/** An element with attributes (`class` included) and children; false/undefined attributes are left out. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | undefined> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

/** Upstream text (a name, a folio, a note): isolated from the text around it, wrapping anywhere. */
export const upstream = (text: string) => h("bdi", { class: "upstream" }, text);

/** An unmapped currency's name: quoted, on a line of its own, never beside an amount. */
export const currencyName = (name: string, t: Messages) =>
  h(
    "span",
    { class: "currency-name", "data-testid": "currency-name" },
    t.quotes[0],
    upstream(name),
    t.quotes[1],
  );

/** A date or time as people write it, kept on one line (a date never breaks across lines). */
export const when = (text: string) => h("span", { class: "date" }, text);

/**
 * Characters a message holds in place of a node (a date, upstream text): messages stay whole
 * phrases per language, and `fill` puts the nodes where each language placed them.
 */
const SLOT = 0xe000;
const slot = (i: number) => String.fromCharCode(SLOT + i);

function fill(message: string, nodes: Node[]): (Node | string)[] {
  const out: (Node | string)[] = [];
  let from = 0;
  for (let i = 0; i < message.length; i++) {
    const node = nodes[message.charCodeAt(i) - SLOT];
    if (node === undefined) continue;
    out.push(message.slice(from, i), node.cloneNode(true));
    from = i + 1;
  }
  out.push(message.slice(from));
  return out.filter((part) => part !== "");
}

/** The amount's column head: a word and what it counts, never the field name (interface.md §8b). */
const amountHead = (t: Messages) =>
  h("span", { class: "amount-head" }, t.amountHead, " ", h("span", { class: "head-detail" }, t.amountDetail));

/** An amount as a node of its own (`.money`), so nothing around it can run into it. */
const money = (amount: number, currency: string, mapped: boolean, fmt: Format) =>
  h("span", { class: "money" }, fmt.money(amount, currency, mapped));

/** A table's caption: "USD: <what>", or an unmapped currency's quoted name over <what>. */
function caption(currency: string, mapped: boolean, what: Child[], t: Messages): HTMLElement {
  if (mapped) return h("caption", {}, `${currency}: `, ...what);
  return h(
    "caption",
    {},
    currencyName(currency, t),
    h("span", { class: "caption-meta" }, t.noIsoCode),
    h("span", { class: "caption-line" }, ...what),
  );
}

/** Rows a chart or table shows before its "Show all" button. */
const FIRST_ROWS = 12;

/**
 * The window line: the period in the host's time zone, named once here, the date it filters on,
 * whether it is the default, today. Returns whether it named the zone (the as-of line then need not).
 * "Today" is the host's date in its zone at `now` (interface.md §6g), beside times in that zone; shown
 * when the result states its own today (the server's, a UTC date, is not the host's near midnight).
 */
export function windowText(
  period: Period,
  statesToday: boolean,
  now: number,
  { fmt, t }: Speech,
): { parts: (Node | string)[]; zoned: boolean } {
  let span: (Node | string)[];
  let zoned = false;
  if (period.since !== undefined || period.until !== undefined) {
    const since = period.since ? when(fmt.instant(period.since)) : t.window.openStart;
    const until = period.until ? when(fmt.instant(period.until)) : t.window.openEnd;
    zoned = true;
    span = [
      ...fill(t.window.span(slot(0), slot(1)), [
        typeof since === "string" ? document.createTextNode(since) : since,
        typeof until === "string" ? document.createTextNode(until) : until,
      ]),
      " ",
      h("span", { class: "date", "data-testid": "zone" }, `(${fmt.zoneName()})`),
    ];
  } else if (period.text !== undefined) {
    span = [upstream(period.text)];
  } else {
    span = [
      period.typeDate !== undefined || period.isDefault !== undefined
        ? t.window.everyDate
        : t.window.notStated,
    ];
  }
  const parts: (Node | string)[][] = [];
  if (period.typeDate) {
    const basis = t.dateBasis[period.typeDate as keyof Messages["dateBasis"]] ?? period.typeDate;
    parts.push([t.window.basis(basis)]);
  }
  if (period.isDefault) parts.push([t.window.defaultPeriod]);
  if (statesToday) {
    // The zone is named here when the span did not name it: a date is a day only in a zone.
    const attrs = { class: "date", "data-testid": "today", "data-zone": zoned ? undefined : "named" };
    parts.push(fill(t.window.today(slot(0)), [h("span", attrs, todayText(now, { fmt, t }, !zoned))]));
    zoned = true;
  }
  const line = [...fill(t.window.line(slot(0)), [h("span", {}, ...span)])];
  return { parts: [...line, ...parts.flatMap((p) => [" · ", ...p])], zoned };
}

/** The host's date at `now` in its zone, the zone named when asked (main.ts redraws it as days pass). */
export function todayText(now: number, { fmt }: Speech, withZone: boolean): string {
  return withZone ? `${fmt.today(now)} (${fmt.zoneName()})` : fmt.today(now);
}

function filtersLine(filters: Filter[], t: Messages): HTMLElement | null {
  if (filters.length === 0) return null;
  const items = filters.map((f) =>
    "key" in f
      ? [`${t.filter[f.key]} `, upstream(f.value)]
      : [`${t.bound[f.field]} ${f.bound} `, upstream(f.value)],
  );
  return h(
    "p",
    { class: "window", "data-testid": "filters" },
    `${t.filters} `,
    ...items.flatMap((item, i) => (i === 0 ? item : [" · ", ...item])),
  );
}

/** The partial result's reason, in the host's language. */
function partialText(review: Review, t: Messages): string | undefined {
  switch (review.partial) {
    case undefined:
      return undefined;
    case "capped":
      return t.partialCapped;
    case "resumable":
      return t.partialResumable;
    case "list":
      return t.partialList(review.returned ?? 0, review.total ?? 0, (review.nextStart ?? null) !== null);
    case "see-notes":
      return t.partialNotes;
  }
}

/** The head of the view: window, the call's filters, counts, complete or partial, sandbox, snapshot age. */
export function renderHead(review: Review, speech: Speech, filters: Filter[], now: number): Node[] {
  const { t } = speech;
  const counts =
    review.kind === "review"
      ? t.reviewCounts(review.scanned ?? 0, review.matched ?? 0)
      : `${t.listCounts(review.returned ?? 0, review.total ?? 0)}${
          review.scanned !== undefined ? ` · ${t.scanned(review.scanned)}` : ""
        }`;
  const partial = partialText(review, t);
  const window = windowText(review.period, review.today !== undefined, now, speech);
  return [
    h("p", { class: "window", "data-testid": "window" }, ...window.parts),
    filtersLine(filters, t),
    review.asOf === undefined ? null : asOfLine(review.asOf, now, speech, !window.zoned),
    h(
      "p",
      { class: "facts" },
      h("span", { "data-testid": "counts" }, counts),
      " ",
      review.complete
        ? h("span", { class: "badge ok", "data-testid": "completeness" }, t.complete)
        : h("span", { class: "badge warn", "data-testid": "completeness" }, t.partial),
      review.sandbox ? h("span", { class: "badge", "data-testid": "sandbox" }, t.sandbox) : null,
    ),
    partial ? h("p", { class: "partial", "data-testid": "partial" }, partial) : null,
    review.resume === undefined
      ? null
      : h("button", { type: "button", class: "continue", name: "continue" }, t.continueReview),
  ].filter((n) => n !== null);
}

/**
 * The as-of line's content at `now` (main.ts keeps the age current): the time in the host's zone
 * (hour and minute that day, else date and time), the zone named when the window line did not.
 */
export function asOfContent(
  asOf: string,
  now: number,
  { fmt, t }: Speech,
  withZone: boolean,
): (Node | string)[] {
  const time = fmt.instant(asOf, now);
  const sameDay = time === fmt.instant(asOf, Date.parse(asOf));
  const at = when(withZone ? `${time} (${fmt.zoneName()})` : time);
  return fill(t.asOf(slot(0), snapshotSeconds(asOf, now), sameDay), [at]);
}

/** "As of 10:42 AM, 95 s ago" and the "Read again" button (a fresh read upstream). */
function asOfLine(asOf: string, now: number, speech: Speech, withZone: boolean): HTMLElement {
  return h(
    "p",
    { class: "window as-of" },
    h(
      "span",
      { "data-testid": "as-of", "data-as-of": asOf, "data-zone": withZone ? "named" : undefined },
      ...asOfContent(asOf, now, speech, withZone),
    ),
    " ",
    h("button", { type: "button", class: "more", name: "fresh" }, speech.t.readAgain),
  );
}

/** The body of the view for a review or a list. */
export function renderBody(review: Review, speech: Speech): Node[] {
  const { t } = speech;
  const out: Node[] = [];
  if (review.kind === "review") {
    if (review.totals.length === 0) out.push(h("p", { class: "empty" }, t.noMatch));
    else out.push(totals(review, speech));
    if (review.changes) out.push(renderChanges(review.changes, speech, h));
    if (review.groupKey && review.charts.length > 0) out.push(charts(review, review.groupKey, speech));
    if (review.age.length > 0) out.push(ageCharts(review, speech));
  } else if (review.largest.length === 0) {
    out.push(h("p", { class: "empty" }, t.noBudget));
  } else {
    out.push(largest(review, speech));
  }
  if (review.kind === "list" && review.changes) out.push(renderChanges(review.changes, speech, h));
  if (review.totals.length > 0 || review.largest.length > 0) {
    out.push(h("p", { class: "footnote" }, t.footnote));
  }
  // A list's ranking is explained where the ranking is (largest()), not among the notes.
  const notes = review.notes.filter((n) => !(review.kind === "list" && n.code === RANKING));
  if (notes.length > 0) {
    out.push(
      h(
        "section",
        { class: "notes", "aria-labelledby": "notes-title" },
        h("h2", { id: "notes-title" }, t.notes),
        h("ul", {}, ...notes.map((n) => h("li", { "data-code": n.code }, ...noteContent(n, speech)))),
      ),
    );
  }
  return out;
}

/** The note that says how a list over several currencies is ranked. */
const RANKING: NoteCode = "mixed_currencies_sorted";

class MissingParam extends Error {}

/** The params a message reads; one the server did not send throws, and the note falls back to its text. */
const strict = <T extends object>(o: T): T =>
  new Proxy(o, {
    get(target, key) {
      if (typeof key === "string" && !Object.hasOwn(target, key)) throw new MissingParam(key);
      return Reflect.get(target, key);
    },
  });

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A server note in the host's language, from its code and params (interface.md §8b); the server's
 * English text for a code the catalogue lacks, a note without a code (older servers), or a
 * message whose params are missing. Upstream values stay isolated text; dates are formatted.
 */
export function noteContent(note: Note, { fmt, t }: Speech): (Node | string)[] {
  const words =
    note.code !== undefined && Object.hasOwn(t.note, note.code) ? t.note[note.code as NoteCode] : undefined;
  if (words === undefined) return [upstream(note.text)];
  const nodes: Node[] = [];
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(note.params)) {
    if (typeof value === "number") {
      shown[name] = fmt.count(value);
      continue;
    }
    nodes.push(ISO_DATE.test(value) ? when(fmt.instant(value)) : upstream(value));
    shown[name] = slot(nodes.length - 1);
  }
  try {
    return fill(words(strict(shown), strict({ ...note.params })), nodes);
  } catch (error) {
    if (error instanceof MissingParam) return [upstream(note.text)];
    throw error;
  }
}

function totals(review: Review, { fmt, t }: Speech): HTMLElement {
  return h(
    "section",
    { "aria-labelledby": "totals-title" },
    h("h2", { id: "totals-title" }, t.totalsTitle),
    h(
      "ul",
      { class: "tiles", "data-testid": "totals" },
      ...review.totals.map((c) =>
        h(
          "li",
          { class: "tile", "data-currency": c.currency },
          h(
            "span",
            { class: c.mapped ? "tile-amount money" : "tile-amount money unmapped", "data-testid": "total" },
            fmt.money(c.total, c.currency, c.mapped),
          ),
          c.mapped ? null : currencyName(c.currency, t),
          c.mapped ? null : h("span", { class: "tile-meta" }, t.noIsoCode),
          h(
            "span",
            { class: "tile-meta" },
            [
              t.budgets(c.count),
              c.oldestPendingDays === undefined ? undefined : t.oldestPending(c.oldestPendingDays),
            ]
              .filter(Boolean)
              .join(" · "),
          ),
        ),
      ),
    ),
  );
}

/** Bar colours of the age buckets: the older, the warmer. */
const AGE_LEVEL: Record<string, string> = {
  "0-7": "age-0",
  "8-30": "age-1",
  "31-60": "age-2",
  "61-90": "age-3",
  "over 90": "age-4",
};

/** A group's value: the server's own words translated, a month formatted, upstream text isolated. */
function labelOf(key: GroupKey, bar: Bar, { fmt, t }: Speech): Node | string {
  if (bar.label === null) return t.none;
  const ours = (table: Record<string, string>) =>
    Object.hasOwn(table, bar.label!) ? table[bar.label!] : undefined;
  switch (key) {
    case "month":
      return when(fmt.month(bar.label));
    case "status":
      return ours(t.values.status) ?? upstream(bar.label);
    case "work_order_status":
      return ours(t.values.workOrderStatus) ?? upstream(bar.label);
    case "age":
      return ours(t.values.age) ?? upstream(bar.label);
    default:
      return upstream(bar.label);
  }
}

function charts(review: Review, key: GroupKey, speech: Speech): HTMLElement {
  const { fmt, t } = speech;
  return h(
    "section",
    { "aria-labelledby": "charts-title" },
    h("h2", { id: "charts-title" }, t.chartsTitle(t.keyPhrase[key])),
    h(
      "div",
      { class: "charts" },
      ...review.charts.map((chart) => {
        const max = Math.max(0, ...chart.bars.map((b) => b.total));
        return barTable({
          caption: caption(chart.currency, chart.mapped, [t.chartCaption(t.keyPhrase[key])], t),
          currency: chart.currency,
          mapped: chart.mapped,
          head: [t.keyHead[key], amountHead(t), t.budgetsHead],
          bar: t.bar,
          rows: chart.bars.map((b) => ({
            label: labelOf(key, b, speech),
            share: max > 0 ? Math.max(0, b.total) / max : 0,
            level: key === "age" && b.label !== null ? AGE_LEVEL[b.label] : undefined,
            cells: [money(b.total, chart.currency, chart.mapped, fmt), fmt.count(b.count)],
          })),
          t,
        });
      }),
    ),
  );
}

function ageCharts(review: Review, { fmt, t }: Speech): HTMLElement {
  return h(
    "section",
    { "aria-labelledby": "age-title" },
    h("h2", { id: "age-title" }, t.ageTitle),
    h(
      "div",
      { class: "charts" },
      ...review.age.map((chart) => {
        // Like every chart: name, amount, count, and the bar stands for the amount.
        const max = Math.max(0, ...chart.buckets.map((b) => b.total));
        return barTable({
          caption: caption(chart.currency, chart.mapped, [t.ageCaption], t),
          currency: chart.currency,
          mapped: chart.mapped,
          head: [t.keyHead.age, amountHead(t), t.budgetsHead],
          bar: t.bar,
          rows: chart.buckets.map((b) => ({
            label: t.values.age[b.age],
            share: max > 0 ? Math.max(0, b.total) / max : 0,
            level: AGE_LEVEL[b.age],
            cells: [money(b.total, chart.currency, chart.mapped, fmt), fmt.count(b.count)],
          })),
          t,
        });
      }),
    ),
  );
}

interface BarRow {
  label: Node | string;
  /** 0..1 of the widest bar. */
  share: number;
  level?: string | undefined;
  cells: (Node | string)[];
}

/** A bar chart as a table: label, a decorative bar, then the figures as text. */
function barTable(chart: {
  caption: HTMLElement;
  currency: string;
  mapped: boolean;
  head: (Node | string)[];
  bar: string;
  rows: BarRow[];
  t: Messages;
}): HTMLElement {
  const [label, ...figures] = chart.head;
  const body = chart.rows.map((row, i) => {
    // A zero is no bar at all; any other value at least a sliver.
    const bar = h("span", { class: `bar${row.level ? ` ${row.level}` : ""}${row.share > 0 ? "" : " zero"}` });
    bar.style.width = `${(row.share * 100).toFixed(1)}%`;
    return h(
      "tr",
      { hidden: i >= FIRST_ROWS },
      h("th", { scope: "row" }, row.label),
      h("td", { class: "bar-cell", "aria-hidden": "true" }, bar),
      ...row.cells.map((c) => h("td", { class: "num" }, c)),
    );
  });
  const table = h(
    "table",
    { class: chart.mapped ? "chart" : "chart unmapped", "data-currency": chart.currency },
    chart.caption,
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, label ?? ""),
        h("th", { scope: "col", class: "bar-cell" }, h("span", { class: "sr-only" }, chart.bar)),
        ...figures.map((f) => h("th", { scope: "col", class: "num" }, f)),
      ),
    ),
    h("tbody", {}, ...body),
  );
  return h("div", { class: "chart-box" }, table, showAll(body, chart.t));
}

/** "Show all N rows" for a long table: the hidden rows are in the page, one press away, never dropped. */
function showAll(rows: HTMLElement[], t: Messages): HTMLElement | null {
  if (rows.length <= FIRST_ROWS) return null;
  const button = h(
    "button",
    { type: "button", class: "more", "aria-expanded": "false" },
    t.showAll(rows.length),
  );
  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") !== "true";
    rows.forEach((r, i) => {
      r.hidden = !open && i >= FIRST_ROWS;
    });
    button.setAttribute("aria-expanded", String(open));
    button.textContent = open ? t.showFirst(FIRST_ROWS) : t.showAll(rows.length);
  });
  return button;
}

function largest(review: Review, speech: Speech): HTMLElement {
  const { fmt, t } = speech;
  const heads = t.recordHeads;
  // How the list is ranked (per currency), said where the ranking is, in the host's language.
  const ranking = review.notes.find((n) => n.code === RANKING);
  const status = (label: string | null) =>
    label === null
      ? "–"
      : Object.hasOwn(t.values.statusLabel, label)
        ? t.values.statusLabel[label as keyof Messages["values"]["statusLabel"]]
        : upstream(label);
  return h(
    "section",
    { "aria-labelledby": "largest-title" },
    h("h2", { id: "largest-title" }, t.largestTitle),
    ranking === undefined
      ? null
      : h("p", { class: "section-note", "data-testid": "ranking" }, ...noteContent(ranking, speech)),
    ...review.largest.map((group) => {
      const rows = group.rows.map((r: BudgetRow, i) =>
        h(
          "tr",
          { hidden: i >= FIRST_ROWS },
          h("th", { scope: "row" }, upstream(r.folio)),
          h("td", {}, r.workOrder === null ? "–" : upstream(r.workOrder)),
          h("td", {}, r.thirdParty === null ? "–" : upstream(r.thirdParty)),
          h("td", {}, status(r.status)),
          h("td", { class: "num" }, money(r.total, r.currency, r.mapped, fmt)),
        ),
      );
      const what = [
        t.largestCaption(
          group.rows.length,
          group.matched,
          fmt.money(group.total, group.currency, group.mapped),
        ),
      ];
      return h(
        "div",
        { class: "chart-box" },
        h(
          "table",
          { class: group.mapped ? "records" : "records unmapped", "data-currency": group.currency },
          caption(group.currency, group.mapped, what, t),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ...[heads.folio, heads.workOrder, heads.thirdParty, heads.status].map((c) =>
                h("th", { scope: "col" }, c),
              ),
              h("th", { scope: "col", class: "num" }, amountHead(t)),
            ),
          ),
          h("tbody", {}, ...rows),
        ),
        showAll(rows, t),
      );
    }),
  );
}
