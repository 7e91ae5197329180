/**
 * The budget-review view (an MCP App, interface.md §8): runs in the host's sandboxed iframe and
 * talks to the host only through the extension's App class (postMessage). It draws each
 * query_budgets result the host hands it, follows the host's theme and locale (numbers and words),
 * and re-runs the review through the host (`tools/call`) when a control changes, continues a
 * partial review from its `resume` token, or reads again (`fresh`); the newest call wins.
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
  freshArguments,
  type GroupChoice,
  type PeriodChoice,
  type Review,
  readResult,
  resumeArguments,
  type StatusChoice,
  standingArguments,
} from "./contract.js";
import { createFormat } from "./format.js";
import { messagesFor } from "./messages/index.js";
import { asOfContent, h, renderBody, renderHead, type Speech, todayText } from "./render.js";

/** The package's version, set by the build (scripts/build.mjs). */
declare const VIEW_VERSION: string;

const TOOL = "query_budgets";
/** Keyboard users step through a select's options; wait this long after the last change before calling. */
const SETTLE_MS = 300;
/** How often the snapshot's age ("95 s ago") is brought up to date. */
const AGE_TICK_MS = 1000;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const main = $<HTMLElement>("app");
const head = $<HTMLElement>("head");
const content = $<HTMLElement>("content");
const live = $<HTMLElement>("live");
const failure = $<HTMLElement>("failure");
const controls = $<HTMLElement>("controls");
const select = (name: string) => controls.querySelector(`select[name="${name}"]`) as HTMLSelectElement;

/** The host's locale (numbers, words) and time zone (every instant shown). */
function speechFor(locale: string | undefined, timeZone?: string): Speech {
  const fmt = createFormat(locale, timeZone);
  return { fmt, t: messagesFor(fmt.locale) };
}

const state: {
  args: Record<string, unknown>;
  review?: Review;
  speech: Speech;
  /** Bumped per call from the view: only the newest call's answer is drawn. */
  seq: number;
  timer?: ReturnType<typeof setTimeout>;
} = { args: {}, speech: speechFor(undefined), seq: 0 };

const app = new App(
  { name: "maintenance-mcp budget review", version: VIEW_VERSION },
  {},
  { autoResize: true },
);

function draw(): void {
  const review = state.review;
  if (!review) return;
  head.replaceChildren(...renderHead(review, state.speech, filtersOf(state.args), Date.now()));
  content.replaceChildren(...renderBody(review, state.speech));
  // The head's buttons (Continue, Read again) call the server too: off where the host cannot relay.
  for (const button of head.querySelectorAll("button")) button.disabled = !hostCanCall();
}

/** Whether the host relays the view's tools/call to the server. */
function hostCanCall(): boolean {
  return app.getHostCapabilities()?.serverTools !== undefined;
}

/** The page's own words (title, controls, their options) in the host's language. */
function label(): void {
  const { t } = state.speech;
  document.documentElement.lang = state.speech.fmt.locale;
  document.title = t.title;
  $("title").textContent = t.title;
  if (!state.review) head.replaceChildren(h("p", { class: "window" }, t.waiting));
  const labels = { ...t.controls };
  for (const el of controls.querySelectorAll<HTMLElement>("[data-label]")) {
    el.textContent = labels[el.dataset.label as keyof typeof labels] ?? el.textContent;
  }
  const options = { status: t.statusChoices, period: t.periodChoices, group: t.groupChoices };
  for (const [name, words] of Object.entries(options)) {
    for (const option of select(name).options) {
      option.textContent = words[option.value as keyof typeof words] ?? option.textContent;
    }
  }
}

function showResult(result: { isError?: boolean; structuredContent?: unknown; content?: unknown }): void {
  if (result.isError) {
    showError(errorText(result.content));
    return;
  }
  const read = readResult(result.structuredContent);
  if ("problem" in read) {
    showError(state.speech.t.notABudgetResult);
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
  return texts.join("\n") || state.speech.t.noExplanation;
}

function showError(text: string): void {
  failure.replaceChildren(h("strong", {}, `${state.speech.t.failed} `), text);
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

/**
 * Calls query_budgets with `args` through the host and draws the answer; on success the view's
 * call becomes `standing` (the arguments later controls, "Continue" and "Read again" start from).
 */
async function run(
  args: Record<string, unknown>,
  standing: Record<string, unknown>,
  refocus?: string,
): Promise<void> {
  const seq = ++state.seq;
  const { t } = state.speech;
  main.setAttribute("aria-busy", "true");
  live.textContent = t.updating;
  try {
    const result = await app.callServerTool({ name: TOOL, arguments: args });
    if (seq !== state.seq) return;
    if (!result.isError) state.args = standing;
    showResult(result);
    live.textContent = result.isError ? t.updateFailed : t.updated;
    // The head was drawn anew: a keyboard user who pressed one of its buttons keeps their place.
    if (refocus) (head.querySelector(`button[name="${refocus}"]`) as HTMLButtonElement | null)?.focus();
  } catch (error) {
    if (seq !== state.seq) return;
    showError(error instanceof Error ? error.message : String(error));
    live.textContent = t.updateFailed;
  }
}

function rerun(): Promise<void> {
  const args = argumentsFor(state.args, readChoices());
  return run(args, args);
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
// The head's buttons: continue a partial review from its token; read the window again, not from the snapshot.
head.addEventListener("click", (event) => {
  const name = (event.target as HTMLElement).closest("button")?.name;
  const standing = standingArguments(state.args);
  if (name === "continue" && state.review?.resume) {
    void run(resumeArguments(standing, state.review.resume), standing, name);
  }
  if (name === "fresh") void run(freshArguments(standing), standing, name);
});
// The snapshot's age stays current while it is on screen, and today's date past midnight.
setInterval(() => {
  const line = head.querySelector<HTMLElement>("[data-as-of]");
  if (line) {
    const withZone = line.dataset.zone === "named";
    line.replaceChildren(...asOfContent(line.dataset.asOf!, Date.now(), state.speech, withZone));
  }
  const today = head.querySelector<HTMLElement>("[data-testid=today]");
  if (today) today.textContent = todayText(Date.now(), state.speech, today.dataset.zone === "named");
}, AGE_TICK_MS);

function applyContext(ctx: McpUiHostContext | undefined): void {
  if (!ctx) return;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
  const locale = ctx.locale ?? app.getHostContext()?.locale;
  const timeZone = ctx.timeZone ?? app.getHostContext()?.timeZone;
  const { fmt } = state.speech;
  const zoneChanged = timeZone !== undefined && timeZone !== fmt.timeZone;
  if ((locale !== undefined && locale !== fmt.locale) || zoneChanged) {
    state.speech = speechFor(locale ?? fmt.locale, timeZone ?? fmt.timeZone);
    label();
    draw();
  }
}

/** Controls need the host to relay tools/call; without it they stay, disabled, with the reason. */
function enableControls(): void {
  const canCall = hostCanCall();
  controls.querySelector("fieldset")!.disabled = !canCall;
  for (const button of head.querySelectorAll("button")) button.disabled = !canCall;
  if (!canCall) live.textContent = state.speech.t.cannotRerun;
}

app.ontoolinput = ({ arguments: args }) => {
  state.args = { ...(args ?? {}) };
  setChoices(choicesOf(state.args));
};
app.ontoolresult = (result) => showResult(result);
app.ontoolcancelled = ({ reason }) => showError(state.speech.t.cancelled(reason));
app.onhostcontextchanged = (ctx) => applyContext(ctx);
app.onteardown = async () => ({});

async function start(): Promise<void> {
  try {
    await app.connect(new PostMessageTransport(window.parent, window.parent));
  } catch (error) {
    showError(state.speech.t.cannotConnect(error instanceof Error ? error.message : String(error)));
    return;
  }
  applyContext(app.getHostContext());
  label();
  enableControls();
}

void start();
