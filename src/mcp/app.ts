/**
 * The MCP App views this server serves (extension io.modelcontextprotocol/ui, interface.md §8):
 * one UI resource, the budget review, linked from the listing of the tools whose results it draws.
 * `npm run build` builds the view from src/ui/ into dist/bin/ui/; the server reads that file on each
 * `resources/read`, never at start (the stdio start path stays lean) and never imports src/ui/
 * (browser code). Hosts without the extension ignore all of it.
 */
export interface AppView {
  uri: string;
  /** resources/list `name` (programmatic) and `title` (for people). */
  name: string;
  title: string;
  description: string;
  /** The tools whose results the view renders (it also calls them back through the host). */
  tools: readonly string[];
  /** The built file, under dist/bin/ui/. */
  file: string;
}

export const BUDGET_REVIEW: AppView = {
  uri: "ui://maintenance-mcp/budget-review",
  name: "budget-review",
  title: "Budget review",
  description:
    "Interactive view of query_budgets results: totals and bar charts per currency by group, the pending queue by age, the largest budgets; re-runs the review by status, period and group.",
  tools: ["query_budgets"],
  file: "budget-review.html",
};

export const APP_VIEWS: readonly AppView[] = [BUDGET_REVIEW];

/** The views whose tools are all registered (the budget review needs query_budgets). */
export function viewsFor(toolNames: ReadonlySet<string>): AppView[] {
  return APP_VIEWS.filter((v) => v.tools.every((t) => toolNames.has(t)));
}

/**
 * Where the built file may be, relative to this module: the shipped bundle (dist/bin/ or
 * dist/bin/chunks/), or the unbundled build and sources the tests run (dist/src/mcp/, src/mcp/).
 */
const PLACES = ["ui/", "../ui/", "../../bin/ui/", "../../dist/bin/ui/"];

/** Thrown when the view's file is not where the build puts it. */
export class ViewNotBuilt extends Error {
  override readonly name = "ViewNotBuilt";
}

/** The view's HTML, read from the build's output. */
export async function readView(view: AppView): Promise<string> {
  // Loaded here, not at start: the stdio start path loads node:fs/promises only when a host asks.
  const { readFile } = await import("node:fs/promises");
  for (const place of PLACES) {
    try {
      return await readFile(new URL(`${place}${view.file}`, import.meta.url), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  throw new ViewNotBuilt(
    `The ${view.name} view is not built: dist/bin/ui/${view.file} is missing. Run npm run build (a packaged install always has it).`,
  );
}
