/** The view's words in English (the language for every locale the catalogue has no module for). */
import { ageUnits, type Catalogue, isYesterday } from "./catalogue.js";
import { notesEn } from "./notes-en.js";

export const en: Catalogue = (say) => ({
  title: "Budget review",
  waiting: "Waiting for the review from the host…",
  controls: {
    legend: "Re-run the review",
    status: "Status",
    period: "Period",
    group: "Group by",
    update: "Update",
  },
  statusChoices: {
    "": "Any status",
    pending: "Pending",
    approved: "Approved",
    rejected: "Rejected or cancelled",
  },
  periodChoices: {
    "7": "Last 7 days",
    "30": "Last 30 days",
    "90": "Last 90 days",
    "365": "Last 365 days",
    all: "Every date",
    current: "Current window",
  },
  groupChoices: {
    currency: "Currency",
    status: "Status",
    cost_center: "Cost center",
    third_party: "Third party",
    month: "Month",
    work_order_status: "Work-order status",
    age: "Age (days)",
    "": "Largest budgets",
  },
  keyHead: {
    currency: "Currency",
    status: "Status",
    cost_center: "Cost center",
    third_party: "Third party",
    month: "Month",
    work_order_status: "Work-order status",
    age: "Age (days)",
  },
  keyPhrase: {
    currency: "currency",
    status: "status",
    cost_center: "cost center",
    third_party: "third party",
    month: "month",
    work_order_status: "work-order status",
    age: "age (days)",
  },
  values: {
    status: { pending: "pending", approved: "approved", rejected: "rejected" },
    statusLabel: {
      "pending approval": "pending approval",
      approved: "approved",
      rejected: "rejected",
      "rejected/cancelled": "rejected",
    },
    workOrderStatus: {
      "in process": "in process",
      "in review": "in review",
      finished: "finished",
      cancelled: "cancelled",
    },
    age: { "0-7": "0-7", "8-30": "8-30", "31-60": "31-60", "61-90": "61-90", "over 90": "over 90" },
  },
  dateBasis: {
    creation_date: "work-order creation date",
    budget_created: "budget creation date",
    initial_date: "initial date",
    final_date: "final date",
    approval_date: "approval date",
  },
  window: {
    line: (span) => `Window: ${span}`,
    span: (since, until) => `${since} – ${until}`,
    openStart: "the first budget",
    openEnd: "now",
    everyDate: "every date",
    notStated: "not stated",
    basis: (basis) => `by ${basis}`,
    defaultPeriod: "default period",
    today: (date) => `today ${date}`,
  },
  filters: "Filters:",
  filter: {
    currency: "currency",
    cost_center: "cost center",
    third_party: "third party",
    id: "folio",
    wo_folio: "work order",
  },
  reviewCounts: (scanned, matched) =>
    `Scanned ${say.num(scanned)} · matched ${say.count(matched, { one: "# budget", other: "# budgets" })}`,
  listCounts: (returned, total) =>
    `${say.num(returned)} of ${say.count(total, { one: "# budget", other: "# budgets" })} in this result`,
  scanned: (n) => `scanned ${say.num(n)}`,
  complete: "Complete",
  partial: "Partial",
  sandbox: "Sandbox data",
  partialCapped:
    "Partial: the review stopped at the most budgets it reads in one call, so the figures cover only the budgets read.",
  partialList: (returned, total, more) =>
    `Partial: ${say.num(returned)} of ${say.count(total, { one: "# budget is", other: "# budgets are" })} in this result${
      more ? "; the next call goes on from there" : ""
    }.`,
  partialResumable:
    "Partial: the server stopped before the end of the window. Continue the review to read the rest; nothing read so far is read again.",
  partialNotes:
    "Partial: these figures do not cover every budget of the window; the notes below say why and how to narrow the review.",
  asOf: (time, seconds) => {
    const { n, unit } = ageUnits(seconds);
    return `As of ${time}, ${say.num(n)} ${unit} ago`;
  },
  readAgain: "Read again",
  continueReview: "Continue the review",
  noMatch: "No budget matches this review.",
  noBudget: "No budget in this result.",
  footnote:
    "Amount: the sum of a budget's line totals, before its discount and before taxes. Currencies are never added together.",
  amountHead: "Amount",
  amountDetail: "(lines, before discount and tax)",
  bound: { items_total: "amount", net_total: "net amount" },
  notes: "Notes",
  note: notesEn(say),
  totalsTitle: "Totals per currency",
  noIsoCode: "no ISO 4217 code: never added to another currency",
  budgets: (n) => say.count(n, { one: "# budget", other: "# budgets" }),
  oldestPending: (days) => `oldest pending ${say.count(days, { one: "# day", other: "# days" })}`,
  none: "(none)",
  chartsTitle: (key) => `By ${key}`,
  chartCaption: (key) => `amount by ${key}`,
  ageTitle: "Pending queue by age",
  ageCaption: "pending budgets by days waiting",
  budgetsHead: "Budgets",
  bar: "Bar",
  showAll: (rows) => `Show all ${say.num(rows)} rows`,
  showFirst: (rows) => `Show the first ${say.num(rows)} rows`,
  largestTitle: "Largest budgets",
  largestCaption: (shown, matched, total) =>
    matched !== undefined && matched > shown
      ? `${say.count(shown, { one: "the largest", other: "the # largest" })} of ${say.count(matched, { one: "# budget", other: "# budgets" })} (${total} together)`
      : `${say.count(shown, { one: "# budget", other: "# budgets" })}, ${total} in all`,
  recordHeads: { folio: "Folio", workOrder: "Work order", thirdParty: "Third party", status: "Status" },
  quotes: ["“", "”"],
  notABudgetResult: "This result holds no budget data: the view shows results of query_budgets.",
  failed: "The review could not be updated.",
  noExplanation: "The call failed without an explanation.",
  updating: "Updating the review…",
  updated: "Review updated.",
  updateFailed: "The update failed.",
  cancelled: (reason) => (reason ? `The call was cancelled: ${reason}` : "The call was cancelled."),
  cannotRerun: "This host does not let the view re-run the review.",
  cannotConnect: (reason) => `The view could not connect to the host: ${reason}`,
  since: {
    title: (when) => `Since the review of ${when}`,
    added: (n, days) => `+${say.num(n)} new ${isYesterday(days) ? "since yesterday" : "since then"}`,
    approved: (n) => `${say.num(n)} approved`,
    rejected: (n) => `${say.num(n)} rejected`,
    gone: (n) => `${say.count(n, { one: "# no longer matches", other: "# no longer match" })}`,
    changed: (n) => `${say.num(n)} changed`,
    removed: (n) => `${say.num(n)} removed`,
    unchanged: (n) => `${say.num(n)} unchanged`,
    notCompared: (n) => `${say.num(n)} not compared (no earlier read covered them)`,
    partial: "One of the two reviews is partial: these figures are within what both read.",
  },
});
