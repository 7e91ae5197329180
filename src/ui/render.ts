/**
 * Draws a Review (contract.ts) into the page: the window and completeness, totals per currency,
 * one bar chart per currency by the first group key, the pending queue by age, or a list's
 * largest budgets. Every chart is a real table (caption, header cells, figures as text) whose
 * bars are decoration, so the table is the chart's text equivalent. Upstream text only ever
 * enters the page as text nodes.
 */
import type { Bar, BudgetRow, GroupKey, Period, Review } from "./contract.js";
import type { Format } from "./format.js";

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

const KEY_LABELS: Record<GroupKey, string> = {
  currency: "Currency",
  status: "Status",
  cost_center: "Cost center",
  third_party: "Third party",
  month: "Month",
  work_order_status: "Work-order status",
  age: "Age (days)",
};

const DATE_TYPES: Record<string, string> = {
  creation_date: "creation date",
  initial_date: "initial date",
  final_date: "final date",
  approval_date: "approval date",
};

/** Rows a chart or table shows before its "Show all" button. */
const FIRST_ROWS = 12;

/** The window line: the period in UTC, the date it filters on, whether it is the default, today. */
export function windowText(period: Period, today: string | undefined, fmt: Format): string {
  let span: string;
  if (period.since !== undefined || period.until !== undefined) {
    const since = period.since ? fmt.instant(period.since) : "the first budget";
    const until = period.until ? fmt.instant(period.until) : "now";
    span = `${since} – ${until} (UTC)`;
  } else if (period.text !== undefined) {
    span = period.text;
  } else {
    span = period.typeDate !== undefined || period.isDefault !== undefined ? "every date" : "not stated";
  }
  const parts = [`Window: ${span}`];
  if (period.typeDate) parts.push(`by ${DATE_TYPES[period.typeDate] ?? period.typeDate}`);
  if (period.isDefault) parts.push("default period");
  if (today) parts.push(`today ${fmt.instant(today)}`);
  return parts.join(" · ");
}

/** The head of the view: window, the call's filters, counts, complete or partial, sandbox. */
export function renderHead(review: Review, fmt: Format, filters: string[]): Node[] {
  const counts =
    review.kind === "review"
      ? `Scanned ${fmt.count(review.scanned ?? 0)} · matched ${fmt.count(review.matched ?? 0)} budgets`
      : `${fmt.count(review.returned ?? 0)} of ${fmt.count(review.total ?? 0)} budgets in this result${
          review.scanned !== undefined ? ` · scanned ${fmt.count(review.scanned)}` : ""
        }`;
  return [
    h("p", { class: "window", "data-testid": "window" }, windowText(review.period, review.today, fmt)),
    filters.length > 0
      ? h("p", { class: "window", "data-testid": "filters" }, `Filters: ${filters.join(" · ")}`)
      : null,
    h(
      "p",
      { class: "facts" },
      h("span", { "data-testid": "counts" }, counts),
      " ",
      review.complete
        ? h("span", { class: "badge ok", "data-testid": "completeness" }, "Complete")
        : h("span", { class: "badge warn", "data-testid": "completeness" }, "Partial"),
      review.sandbox ? h("span", { class: "badge", "data-testid": "sandbox" }, "Sandbox data") : null,
    ),
    review.partial ? h("p", { class: "partial" }, review.partial) : null,
  ].filter((n) => n !== null);
}

/** The body of the view for a review or a list. */
export function renderBody(review: Review, fmt: Format): Node[] {
  const out: Node[] = [];
  if (review.kind === "review") {
    if (review.totals.length === 0) out.push(h("p", { class: "empty" }, "No budget matches this review."));
    else out.push(totals(review, fmt));
    if (review.groupKey && review.charts.length > 0) out.push(charts(review, review.groupKey, fmt));
    if (review.age.length > 0) out.push(ageCharts(review, fmt));
  } else if (review.largest.length === 0) {
    out.push(h("p", { class: "empty" }, "No budget in this result."));
  } else {
    out.push(largest(review, fmt));
  }
  if (review.totals.length > 0 || review.largest.length > 0) {
    out.push(
      h(
        "p",
        { class: "footnote" },
        "items_total: the sum of a budget's line totals, before its discount and before taxes. Currencies are never added together.",
      ),
    );
  }
  if (review.notes.length > 0) {
    out.push(
      h(
        "section",
        { class: "notes", "aria-labelledby": "notes-title" },
        h("h2", { id: "notes-title" }, "Notes"),
        h("ul", {}, ...review.notes.map((n) => h("li", {}, n))),
      ),
    );
  }
  return out;
}

function totals(review: Review, fmt: Format): HTMLElement {
  return h(
    "section",
    { "aria-labelledby": "totals-title" },
    h("h2", { id: "totals-title" }, "Totals per currency"),
    h(
      "ul",
      { class: "tiles", "data-testid": "totals" },
      ...review.totals.map((t) =>
        h(
          "li",
          { class: "tile", "data-currency": t.currency },
          h(
            "span",
            { class: t.mapped ? "tile-amount" : "tile-amount unmapped", "data-testid": "total" },
            fmt.money(t.total, t.currency, t.mapped),
          ),
          t.mapped
            ? null
            : h("span", { class: "tile-meta" }, "no ISO 4217 code: never added to another currency"),
          h(
            "span",
            { class: "tile-meta" },
            [
              `${fmt.count(t.count)} ${t.count === 1 ? "budget" : "budgets"}`,
              t.oldestPendingDays === undefined
                ? undefined
                : `oldest pending ${fmt.count(t.oldestPendingDays)} ${t.oldestPendingDays === 1 ? "day" : "days"}`,
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

const labelOf = (key: GroupKey, bar: Bar, fmt: Format) =>
  bar.label === null ? "(none)" : key === "month" ? fmt.month(bar.label) : bar.label;

function charts(review: Review, key: GroupKey, fmt: Format): HTMLElement {
  return h(
    "section",
    { "aria-labelledby": "charts-title" },
    h("h2", { id: "charts-title" }, `By ${KEY_LABELS[key].toLowerCase()}`),
    h(
      "div",
      { class: "charts" },
      ...review.charts.map((chart) => {
        const max = Math.max(0, ...chart.bars.map((b) => b.total));
        return barTable({
          caption: `${chart.currency}: items_total by ${KEY_LABELS[key].toLowerCase()}`,
          currency: chart.currency,
          mapped: chart.mapped,
          head: [KEY_LABELS[key], "items_total", "Budgets"],
          rows: chart.bars.map((b) => ({
            label: labelOf(key, b, fmt),
            share: max > 0 ? Math.max(0, b.total) / max : 0,
            level: key === "age" && b.label !== null ? AGE_LEVEL[b.label] : undefined,
            cells: [fmt.money(b.total, chart.currency, chart.mapped), fmt.count(b.count)],
          })),
        });
      }),
    ),
  );
}

function ageCharts(review: Review, fmt: Format): HTMLElement {
  return h(
    "section",
    { "aria-labelledby": "age-title" },
    h("h2", { id: "age-title" }, "Pending queue by age"),
    h(
      "div",
      { class: "charts" },
      ...review.age.map((chart) => {
        const max = Math.max(0, ...chart.buckets.map((b) => b.count));
        return barTable({
          caption: `${chart.currency}: pending budgets by days waiting`,
          currency: chart.currency,
          mapped: chart.mapped,
          head: ["Age (days)", "Budgets", "items_total"],
          rows: chart.buckets.map((b) => ({
            label: b.age,
            share: max > 0 ? b.count / max : 0,
            level: AGE_LEVEL[b.age],
            cells: [fmt.count(b.count), fmt.money(b.total, chart.currency, chart.mapped)],
          })),
        });
      }),
    ),
  );
}

interface BarRow {
  label: string;
  /** 0..1 of the widest bar. */
  share: number;
  level?: string | undefined;
  cells: string[];
}

/** A bar chart as a table: label, a decorative bar, then the figures as text. */
function barTable(chart: {
  caption: string;
  currency: string;
  mapped: boolean;
  head: string[];
  rows: BarRow[];
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
    h("caption", {}, chart.caption),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, label ?? ""),
        h("th", { scope: "col", class: "bar-cell" }, h("span", { class: "sr-only" }, "Bar")),
        ...figures.map((f) => h("th", { scope: "col", class: "num" }, f)),
      ),
    ),
    h("tbody", {}, ...body),
  );
  return h("div", { class: "chart-box" }, table, showAll(body));
}

/** "Show all N rows" for a long table: the hidden rows are in the page, one press away, never dropped. */
function showAll(rows: HTMLElement[]): HTMLElement | null {
  if (rows.length <= FIRST_ROWS) return null;
  const button = h(
    "button",
    { type: "button", class: "more", "aria-expanded": "false" },
    `Show all ${rows.length} rows`,
  );
  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") !== "true";
    rows.forEach((r, i) => {
      r.hidden = !open && i >= FIRST_ROWS;
    });
    button.setAttribute("aria-expanded", String(open));
    button.textContent = open ? `Show the first ${FIRST_ROWS} rows` : `Show all ${rows.length} rows`;
  });
  return button;
}

function largest(review: Review, fmt: Format): HTMLElement {
  return h(
    "section",
    { "aria-labelledby": "largest-title" },
    h("h2", { id: "largest-title" }, "Largest budgets"),
    ...review.largest.map((group) => {
      const rows = group.rows.map((r: BudgetRow, i) =>
        h(
          "tr",
          { hidden: i >= FIRST_ROWS },
          h("th", { scope: "row" }, r.folio),
          h("td", {}, r.workOrder ?? "–"),
          h("td", {}, r.thirdParty ?? "–"),
          h("td", {}, r.status ?? "–"),
          h("td", { class: "num" }, fmt.money(r.total, r.currency, r.mapped)),
        ),
      );
      const n = group.rows.length;
      return h(
        "div",
        { class: "chart-box" },
        h(
          "table",
          { class: "records", "data-currency": group.currency },
          h(
            "caption",
            {},
            `${group.currency}: ${fmt.count(n)} ${n === 1 ? "budget" : "budgets"}, ${fmt.money(group.total, group.currency, group.mapped)} in all`,
          ),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ...["Folio", "Work order", "Third party", "Status"].map((c) => h("th", { scope: "col" }, c)),
              h("th", { scope: "col", class: "num" }, "items_total"),
            ),
          ),
          h("tbody", {}, ...rows),
        ),
        showAll(rows),
      );
    }),
  );
}
