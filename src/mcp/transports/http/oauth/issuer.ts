/**
 * The authorization server as the resource server needs it: its metadata (RFC 8414, or OpenID
 * Connect discovery), fetched once and kept; the JWKS (jose's remote key set: cached, refetched on an
 * unknown `kid` at most once a minute); the introspection endpoint for opaque tokens.
 * A failed discovery is retried on a later request, at most once a minute.
 */

export interface IssuerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  registration_endpoint?: string;
  code_challenge_methods_supported?: string[];
  client_id_metadata_document_supported?: boolean;
}

/** The discovery URLs of an issuer, in the order RFC 8414 §3.1 and OpenID Connect Discovery give them. */
export function discoveryUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

export class IssuerUnavailable extends Error {}

/** Fetch the issuer's metadata; its `issuer` must equal `issuer` exactly (RFC 8414 §3.3). */
export async function fetchIssuerMetadata(
  issuer: string,
  timeoutMs = 5_000,
): Promise<{ metadata: IssuerMetadata; url: string }> {
  const tried: string[] = [];
  for (const url of discoveryUrls(issuer)) {
    let res: Response;
    try {
      res = await fetch(url, {
        signal: AbortSignal.timeout(timeoutMs),
        headers: { accept: "application/json" },
      });
    } catch (error) {
      tried.push(
        `${url}: ${(error as Error).name === "TimeoutError" ? "no answer in time" : "cannot connect"}`,
      );
      continue;
    }
    if (!res.ok) {
      tried.push(`${url}: HTTP ${res.status}`);
      await res.body?.cancel();
      continue;
    }
    const metadata = (await res.json().catch(() => undefined)) as IssuerMetadata | undefined;
    if (metadata?.issuer !== issuer)
      throw new IssuerUnavailable(
        `${url} names another issuer than MCP_OAUTH_ISSUER (the two must be equal, character for character)`,
      );
    return { metadata, url };
  }
  throw new IssuerUnavailable(`no metadata for MCP_OAUTH_ISSUER (${tried.join("; ")})`);
}

/** The issuer's metadata, fetched on first use and kept; a failure is retried at most once a minute. */
export class IssuerCache {
  #pending: Promise<IssuerMetadata> | undefined;
  #failedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly issuer: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Fetch the metadata now (at start): undefined when it answered (and is kept), else why not. A
   * failure here does not hold back the first request's own try.
   */
  async probe(): Promise<string | undefined> {
    try {
      const { metadata } = await fetchIssuerMetadata(this.issuer);
      this.#pending ??= Promise.resolve(metadata);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  get(): Promise<IssuerMetadata> {
    if (this.#pending === undefined) {
      if (this.now() - this.#failedAt < 60_000)
        return Promise.reject(
          new IssuerUnavailable("the authorization server could not be reached; retrying within a minute"),
        );
      this.#pending = fetchIssuerMetadata(this.issuer).then(
        ({ metadata }) => metadata,
        (error: unknown) => {
          this.#pending = undefined;
          this.#failedAt = this.now();
          throw error;
        },
      );
    }
    return this.#pending;
  }
}
