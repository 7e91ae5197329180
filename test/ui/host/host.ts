/**
 * The browser tests' host page: what an MCP Apps host does around a view, built on the
 * extension's own host side (`AppBridge`). It loads the view's HTML in a sandboxed iframe under
 * the extension's default CSP, hands it the tool's input and result, relays the view's
 * `tools/call` to the test (`window.mcpCallTool`, the real MCP client in Node), and changes the
 * theme on request. The test drives it through `window.host`.
 */
import {
  AppBridge,
  type McpUiHostContext,
  PostMessageTransport,
} from "@modelcontextprotocol/ext-apps/app-bridge";

/** The CSP a host must apply to a view that declares no `_meta.ui.csp` (MCP Apps, "Restrictive Default"). */
const DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'";

export interface OpenOptions {
  html: string;
  toolInput: Record<string, unknown>;
  toolResult: { content: unknown[]; structuredContent?: unknown; isError?: boolean };
  context: McpUiHostContext;
  /** Offer tools/call to the view (hostCapabilities.serverTools). */
  serverTools?: boolean;
}

declare global {
  interface Window {
    /** Exposed by the test: a tools/call through the real MCP client. */
    mcpCallTool(params: unknown): Promise<unknown>;
    host: {
      open(options: OpenOptions): Promise<void>;
      setContext(context: McpUiHostContext): void;
      /** The tools/call requests the view sent, in order. */
      calls: unknown[];
    };
  }
}

let bridge: AppBridge | undefined;

/** The view's HTML with the host's CSP as the first thing in its head. */
function withCsp(html: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${DEFAULT_CSP}">`;
  return html.replace(/<head>/i, `<head>${meta}`);
}

window.host = {
  calls: [],
  async open({ html, toolInput, toolResult, context, serverTools = true }) {
    const iframe = document.createElement("iframe");
    iframe.title = "Budget review";
    // A view runs sandboxed: scripts only, an opaque origin, no access to the host page.
    iframe.setAttribute("sandbox", "allow-scripts");
    iframe.style.cssText = "width: calc(100vw - 40px); height: 200px; border: 0; display: block;";
    document.body.append(iframe);
    bridge = new AppBridge(
      null,
      { name: "maintenance-mcp test host", version: "1" },
      serverTools ? { serverTools: {}, logging: {} } : { logging: {} },
      { hostContext: context },
    );
    bridge.oncalltool = async (params) => {
      window.host.calls.push(params);
      return (await window.mcpCallTool(params)) as never;
    };
    bridge.onsizechange = ({ height }) => {
      if (height !== undefined) iframe.style.height = `${Math.ceil(height)}px`;
    };
    const initialized = new Promise<void>((resolve) => {
      bridge!.oninitialized = () => resolve();
    });
    await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
    iframe.srcdoc = withCsp(html);
    await initialized;
    await bridge.sendToolInput({ arguments: toolInput });
    await bridge.sendToolResult(toolResult as never);
  },
  setContext(context) {
    bridge?.setHostContext(context);
  },
};
