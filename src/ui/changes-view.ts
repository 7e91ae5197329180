/** The "since" section of the view (interface.md §6e, §6f), drawn from what changes.ts read. */
import type { ChangeFigures, Changes } from "./changes.js";
import type { Format } from "./format.js";
import type { Messages } from "./messages/index.js";

type El = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string>,
  ...children: (Node | string | null)[]
) => HTMLElement;

/** The "since" section: a line per kind of change that happened, amounts per currency. */
export function renderChanges(
  changes: Changes,
  { fmt, t }: { fmt: Format; t: Messages },
  h: El,
): HTMLElement {
  const amounts = (f: ChangeFigures) =>
    f.byCurrency.map((c) => fmt.money(c.total, c.currency, c.mapped)).join(" · ");
  const line = (kind: "new" | "approved" | "rejected" | "gone" | "removed", f: ChangeFigures) =>
    f.count === 0
      ? null
      : h(
          "li",
          { class: `since-${kind}`, "data-testid": `since-${kind}` },
          h(
            "span",
            { class: "since-count" },
            t.since[kind === "new" ? "added" : kind](f.count, changes.ageDays),
          ),
          f.byCurrency.length > 0 ? h("span", { class: "since-amounts money" }, amounts(f)) : null,
        );
  const money = (m: Changes["amounts"][number]["before"]) => fmt.money(m.total, m.currency, m.mapped);
  const amountsSaid = changes.amounts.map((a) => `${a.folio}: ${money(a.before)} → ${money(a.after)}`);
  const rest = [
    changes.changed.count > 0 ? t.since.changed(changes.changed.count) : undefined,
    t.since.unchanged(changes.unchanged),
    changes.notCompared.count > 0 ? t.since.notCompared(changes.notCompared.count) : undefined,
  ].filter((s): s is string => s !== undefined);
  return h(
    "section",
    { class: "since", "aria-labelledby": "since-title", "data-testid": "since" },
    h("h2", { id: "since-title" }, t.since.title(fmt.instant(changes.asOf))),
    h(
      "ul",
      {},
      line("new", changes.new),
      line("approved", changes.approved),
      line("rejected", changes.rejected),
      line("gone", changes.gone),
      line("removed", changes.removed),
    ),
    amountsSaid.length > 0
      ? h(
          "p",
          { class: "since-amounts-changed money", "data-testid": "since-changed" },
          amountsSaid.join(" · "),
        )
      : null,
    h("p", { class: "since-rest" }, rest.join(" · ")),
    changes.partial ? h("p", { class: "since-partial" }, t.since.partial) : null,
  );
}
