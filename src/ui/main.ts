/**
 * The budget-review view (an MCP App, interface.md §8): runs in the host's sandboxed iframe and
 * talks to the host only through the extension's App class (postMessage). It draws each
 * query_budgets result the host hands it, follows the host's theme and locale, and re-runs the
 * review through the host (`tools/call`) when a control changes; the newest call wins.
 */
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
  type McpUiHostContext,
  PostMessageTransport,
} from "@modelcontextprotocol/ext-apps";
import {
  argumentsFor,
  type Choices,
  choicesOf,
  filtersOf,
  type GroupChoice,
  type PeriodChoice,
  type Review,
  readResult,
  type StatusChoice,
} from "./contract.js";
import { createFormat, type Format } from "./format.js";
import { h, renderBody, renderHead } from "./render.js";

/** The package's version, set by the build (scripts/build.mjs). */
declare const VIEW_VERSION: string;

const TOOL = "query_budgets";
/** Keyboard users step through a select's options; wait this long after the last change before calling. */
const SETTLE_MS = 300;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const main = $<HTMLElement>("app");
const head = $<HTMLElement>("head");
const content = $<HTMLElement>("content");
const live = $<HTMLElement>("live");
const failure = $<HTMLElement>("failure");
const controls = $<HTMLElement>("controls");
const select = (name: string) => controls.querySelector(`select[name="${name}"]`) as HTMLSelectElement;

const state: {
  args: Record<string, unknown>;
  review?: Review;
  format: Format;
  /** Bumped per call from the controls: only the newest call's answer is drawn. */
  seq: number;
  timer?: ReturnType<typeof setTimeout>;
} = { args: {}, format: createFormat(undefined), seq: 0 };

const app = new App(
  { name: "maintenance-mcp budget review", version: VIEW_VERSION },
  {},
  { autoResize: true },
);

function draw(): void {
  const review = state.review;
  if (!review) return;
  head.replaceChildren(...renderHead(review, state.format, filtersOf(state.args)));
  content.replaceChildren(...renderBody(review, state.format));
}

function showResult(result: { isError?: boolean; structuredContent?: unknown; content?: unknown }): void {
  if (result.isError) {
    showError(errorText(result.content));
    return;
  }
  const read = readResult(result.structuredContent);
  if ("problem" in read) {
    showError(read.problem);
    return;
  }
  failure.hidden = true;
  state.review = read;
  draw();
  main.setAttribute("aria-busy", "false");
}

/** An error result's text, as the server wrote it for the agent (it names the fix). */
function errorText(blocks: unknown): string {
  const texts = Array.isArray(blocks)
    ? blocks.filter((b) => b?.type === "text" && typeof b.text === "string").map((b) => b.text as string)
    : [];
  return texts.join("\n") || "The call failed without an explanation.";
}

function showError(text: string): void {
  failure.replaceChildren(h("strong", {}, "The review could not be updated. "), text);
  failure.hidden = false;
  main.setAttribute("aria-busy", "false");
}

function setChoices(choices: Choices): void {
  select("status").value = choices.status;
  select("period").value = choices.period;
  select("group").value = choices.group;
}

function readChoices(): Choices {
  return {
    status: select("status").value as StatusChoice,
    period: select("period").value as PeriodChoice,
    group: select("group").value as GroupChoice,
  };
}

async function rerun(): Promise<void> {
  const seq = ++state.seq;
  const args = argumentsFor(state.args, readChoices());
  main.setAttribute("aria-busy", "true");
  live.textContent = "Updating the review…";
  try {
    const result = await app.callServerTool({ name: TOOL, arguments: args });
    if (seq !== state.seq) return;
    if (!result.isError) state.args = args;
    showResult(result);
    live.textContent = result.isError ? "The update failed." : "Review updated.";
  } catch (error) {
    if (seq !== state.seq) return;
    showError(error instanceof Error ? error.message : String(error));
    live.textContent = "The update failed.";
  }
}

// No <form>: hosts sandbox the view without allow-forms, and a blocked submission is a console error.
controls.addEventListener("change", () => {
  clearTimeout(state.timer);
  state.timer = setTimeout(() => void rerun(), SETTLE_MS);
});
controls.querySelector("button")!.addEventListener("click", () => {
  clearTimeout(state.timer);
  void rerun();
});

function applyContext(ctx: McpUiHostContext | undefined): void {
  if (!ctx) return;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
  const locale = ctx.locale ?? app.getHostContext()?.locale;
  if (locale !== undefined && locale !== state.format.locale) {
    state.format = createFormat(locale);
    document.documentElement.lang = state.format.locale;
    draw();
  }
}

/** Controls need the host to relay tools/call; without it they stay, disabled, with the reason. */
function enableControls(): void {
  const canCall = app.getHostCapabilities()?.serverTools !== undefined;
  controls.querySelector("fieldset")!.disabled = !canCall;
  if (!canCall) live.textContent = "This host does not let the view re-run the review.";
}

app.ontoolinput = ({ arguments: args }) => {
  state.args = { ...(args ?? {}) };
  setChoices(choicesOf(state.args));
};
app.ontoolresult = (result) => showResult(result);
app.ontoolcancelled = ({ reason }) => showError(`The call was cancelled${reason ? `: ${reason}` : "."}`);
app.onhostcontextchanged = (ctx) => applyContext(ctx);
app.onteardown = async () => ({});

async function start(): Promise<void> {
  try {
    await app.connect(new PostMessageTransport(window.parent, window.parent));
  } catch (error) {
    showError(`The view could not connect to the host: ${error instanceof Error ? error.message : error}`);
    return;
  }
  applyContext(app.getHostContext());
  document.documentElement.lang = state.format.locale;
  enableControls();
}

void start();
