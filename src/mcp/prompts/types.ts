/**
 * The shape of an MCP prompt, free of the SDK: a plain definition whose `render` turns the
 * client's string arguments into messages, or throws PromptArgumentError with the one fix.
 */

export interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: { type: "text"; text: string };
}

export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  /** Tools the messages call: the prompt is offered only when all are registered. */
  tools: string[];
  /** Arguments arrive as strings (MCP prompts/get); `now` fixes dates for tests. */
  render(
    args: Record<string, string | undefined>,
    now?: Date,
  ): { description: string; messages: PromptMessage[] };
}

/** A bad prompt argument; answered as a JSON-RPC invalid-params error naming the fix. */
export class PromptArgumentError extends Error {
  override name = "PromptArgumentError";
}
