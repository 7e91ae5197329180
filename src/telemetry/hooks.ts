/**
 * The request path's tracing hooks, free when tracing is off: until `installTracing` runs (src/main/build.ts,
 * only when an OTLP endpoint is set) they call straight through, and this module imports nothing, so a
 * start without tracing does not even load `@opentelemetry/api` (about 20 ms of a cold start).
 */
import type * as Spans from "./spans.js";

type SpansModule = Pick<typeof Spans, "toolCallSpan" | "upstreamSpan" | "spanEvent">;

let spans: SpansModule | undefined;

/** Route the hooks to src/telemetry/spans.ts (after startTracing registered the SDK). */
export function installTracing(module: SpansModule): void {
  spans = module;
}

const NO_TOOL_SPAN: Spans.ToolSpan = { fail() {} };
const NO_UPSTREAM_SPAN: Spans.UpstreamSpan = { status() {} };

export const toolCallSpan: typeof Spans.toolCallSpan = (tool, options, fn) =>
  spans ? spans.toolCallSpan(tool, options, fn) : fn(NO_TOOL_SPAN);

export const upstreamSpan: typeof Spans.upstreamSpan = (method, template, fn) =>
  spans ? spans.upstreamSpan(method, template, fn) : fn(NO_UPSTREAM_SPAN);

export const spanEvent: typeof Spans.spanEvent = (name, attributes) => spans?.spanEvent(name, attributes);
