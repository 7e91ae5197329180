/**
 * What a remote MCP host does to sign in, for the OAuth tests: an OAuthClientProvider kept in memory
 * (the MCP SDK's own client drives discovery, registration, PKCE and the token request), and the
 * user's part, done with plain HTTP: follow the authorization server's redirects, sign in as the
 * demo user and consent on oidc-provider's development pages, and return the callback's parameters.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/client";

export const REDIRECT_URL = "http://127.0.0.1:1/callback";

export interface MemoryProvider extends OAuthClientProvider {
  /** The authorization URL the SDK sent the "user" to, once it did. */
  authorizationUrl: URL | undefined;
  /** The tokens the SDK saved. */
  saved: { access_token: string; scope?: string } | undefined;
}

export function memoryProvider(scope?: string): MemoryProvider {
  let client: unknown;
  let verifier = "";
  const provider: MemoryProvider = {
    authorizationUrl: undefined,
    saved: undefined,
    get redirectUrl() {
      return REDIRECT_URL;
    },
    get clientMetadata() {
      return {
        redirect_uris: [REDIRECT_URL],
        client_name: "remote host (test)",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        ...(scope ? { scope } : {}),
      };
    },
    clientInformation: () => client as undefined,
    saveClientInformation: (info) => {
      client = info;
    },
    tokens: () => provider.saved as undefined,
    saveTokens: (tokens) => {
      provider.saved = tokens as MemoryProvider["saved"];
    },
    redirectToAuthorization: (url) => {
      provider.authorizationUrl = url;
    },
    saveCodeVerifier: (v) => {
      verifier = v;
    },
    codeVerifier: () => verifier,
  };
  return provider;
}

/** The user signs in as `login` and consents; returns the callback URL's parameters (code, iss). */
export async function signIn(authorizationUrl: URL, login = "demo"): Promise<URLSearchParams> {
  const jar = new Map<string, string>();
  let url = authorizationUrl.href;
  let init: { method: string; body?: string } = { method: "GET" };
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(init.body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = res.headers.get("location");
    if (location !== null) {
      await res.body?.cancel();
      const next = new URL(location, url);
      if (next.href.startsWith(REDIRECT_URL)) return next.searchParams;
      url = next.href;
      init = { method: "GET" };
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (action === undefined || prompt === undefined)
      throw new Error(`sign-in stopped at HTTP ${res.status}: ${html.slice(0, 300)}`);
    url = new URL(action.replace(/&amp;/g, "&"), url).href;
    init = {
      method: "POST",
      body:
        prompt === "login"
          ? new URLSearchParams({ prompt, login, password: "any" }).toString()
          : "prompt=consent",
    };
  }
  throw new Error("sign-in did not reach the callback in 20 steps");
}
