/**
 * The Hawk signer against the published vectors of shared/spec/hawk.md: the inputs (resource,
 * host, port, content type, payload) come from our AuthRequest, only ts/nonce/ext are fixed,
 * so these prove what our signer feeds to the hawk package.
 */
import Hawk from "hawk";
import { beforeAll, describe, expect, it } from "vitest";
import { HawkStrategy, loadHawk, signHawk } from "../../src/auth/hawk.js";
import type { AuthRequest } from "../../src/auth/types.js";
import { parseBaseUrl } from "../../src/client/api-path.js";
import type { HawkConfig } from "../../src/config/config.js";
import { Secret } from "../../src/errors/secret.js";

const README_KEY = "werxhqb98rpaxn39848xrunpaw3489ruxnpa98w4rxn";
const readme: HawkConfig = {
  id: "dh37fgj492je",
  key: new Secret(README_KEY),
  app: undefined,
  dlg: undefined,
  payloadHash: true,
};

function request(url: string, method: string, body?: string, contentType?: string): AuthRequest {
  const u = new URL(url);
  const base = parseBaseUrl(u.origin);
  return {
    method,
    protocol: base.protocol,
    hostname: base.hostname,
    port: base.port,
    path: u.pathname + u.search,
    body,
    contentType,
  };
}

const fixed = { timestamp: 1353832234, nonce: "j4h3g2" };

// The package loads lazily (not at import): signHawk needs it loaded.
beforeAll(() => loadHawk());

describe("signHawk reproduces the published vectors", () => {
  it("GET with ext (API.md protocol example)", () => {
    const { header, artifacts } = signHawk(
      request("http://example.com:8000/resource/1?b=1&a=2", "GET"),
      readme,
      {
        ...fixed,
        ext: "some-app-ext-data",
      },
    );
    expect(header).toBe(
      'Hawk id="dh37fgj492je", ts="1353832234", nonce="j4h3g2", ext="some-app-ext-data", mac="6R4rV5iE+NPoym+WwjeHzjAGXUtLNIxmo1vpMofpLAE="',
    );
    expect(artifacts).toMatchObject({ resource: "/resource/1?b=1&a=2", host: "example.com", port: "8000" });
  });

  it("POST with text/plain payload hash", () => {
    const { header } = signHawk(
      request(
        "http://example.com:8000/resource/1?b=1&a=2",
        "POST",
        "Thank you for flying Hawk",
        "text/plain",
      ),
      readme,
      { ...fixed, ext: "some-app-ext-data" },
    );
    expect(header).toBe(
      'Hawk id="dh37fgj492je", ts="1353832234", nonce="j4h3g2", hash="Yi9LfIIFRtBEPt74PVmbTF/xVAwPn7ub15ePICfgnuY=", ext="some-app-ext-data", mac="aSe1DERmZuRl3pI36/9BdZmnErTw3sNzOOAUlfeKjVw="',
    );
  });

  it("client.js vectors on https with the default port 443", () => {
    const cfg: HawkConfig = { ...readme, id: "123456", key: new Secret("2983d45yun89q") };
    const req = request(
      "https://example.net/somewhere/over/the/rainbow",
      "POST",
      "something to write about",
      "text/plain",
    );
    const t = { timestamp: 1353809207, nonce: "Ygvqdz" };
    expect(signHawk(req, cfg, { ...t, ext: "Bazinga!" }).header).toContain(
      'mac="q1CwFoSHzPZSkbIvl0oYlD+91rBUEvFk763nMjMndj8="',
    );
    const noExt = signHawk(req, cfg, t);
    expect(noExt.header).toContain('hash="2QfCt3GuY9HQnHWyWD3wX68ZOKbynqlfYmuO2ZBRqtY="');
    expect(noExt.header).toContain('mac="HTgtd0jPI6E4izx8e4OHdO36q00xFCU0FolNq3RiCYs="');
    expect(noExt.artifacts.port).toBe("443");
    const empty = signHawk({ ...req, body: "" }, cfg, t);
    expect(empty.header).toContain('hash="q/t+NNAkQZNlq/aAD6PlexImwQTxwgT2MahfTa9XRLA="');
    expect(empty.header).toContain('mac="U5k16YEzn3UnBHKeBzsDXn067Gu3R4YaY6xOt9PYRZM="');
  });

  it("regression GET on api.example.com:443 with the /api prefix and the exact query, no ext", () => {
    const { header, artifacts } = signHawk(
      request(
        "https://api.example.com/api/wo_budget/?since=2024-01-01T00:00:00-05&until=2024-01-31T23:59:59-05",
        "GET",
      ),
      readme,
      fixed,
    );
    expect(header).toContain('mac="dRXnet8k0pmPJ2fpDCKP7vcSDvW+LUX/RLqFn05NpXI="');
    expect(header).not.toContain("ext=");
    expect(header).not.toContain("hash=");
    expect(artifacts).toMatchObject({ host: "api.example.com", port: "443" });
  });

  it("regression POST: JSON payload hash (charset ignored) and the same request without hash", () => {
    const body = '{"resources":[{"type_description":"INVENTORY","id_item":1}]}';
    const url = "https://api.example.com/api/group_tasks/10/tasks/20/resources";
    const withHash = signHawk(request(url, "POST", body, "application/json; charset=utf-8"), readme, fixed);
    expect(withHash.header).toContain('hash="Xty9d1+Eg7YO/IyY3VNfIakL6/hhaRxn7TsGHY8VI5E="');
    expect(withHash.header).toContain('mac="Rk2mJwiLRYHJyegOpQRRy+jRgUUUxQw5q5p/APvfQpk="');
    // Our client sends plain application/json: the hash is the same (parameters are not hashed).
    expect(signHawk(request(url, "POST", body, "application/json"), readme, fixed).header).toBe(
      withHash.header,
    );
    const noHash = signHawk(
      request(url, "POST", body, "application/json"),
      { ...readme, payloadHash: false },
      fixed,
    );
    expect(noHash.header).toContain('mac="OPJAB62P5eR5s6VyOEF2Wjmk7PGvhWitfpQ9IBLSjTs="');
    expect(noHash.header).not.toContain("hash=");
  });

  it("sends app and dlg when configured, and never the key", () => {
    const { header } = signHawk(
      request("https://api.example.com/api/x", "GET"),
      { ...readme, app: "my-app", dlg: "d1" },
      fixed,
    );
    expect(header).toMatch(/, app="my-app", dlg="d1"$/);
    expect(header).not.toContain(README_KEY);
  });

  it("keeps percent-encoded and sub-delimiter characters of the path verbatim in the resource", () => {
    const path = "/api/warehouse_entries_orders/it's%2F(ok)*!";
    const { artifacts } = signHawk(
      request(`https://api.example.com${path}`, "POST", "{}", "application/json"),
      readme,
      fixed,
    );
    expect(artifacts.resource).toBe(path);
  });

  it("published tsm helpers agree (calculateTsMac regression vector)", () => {
    expect(
      Hawk.crypto.calculateTsMac("1353832234", { id: readme.id, key: README_KEY, algorithm: "sha256" }),
    ).toBe("2mw1eh/qXzl0wJZ/E6XvBhRMEJN7L3j8AyMA8eItEb0=");
  });
});

describe("HawkStrategy clock offset from a stale-timestamp challenge (injected clock)", () => {
  const localMs = Date.parse("2025-01-01T00:00:00Z");
  const serverS = localMs / 1000 + 600; // the server is 10 minutes ahead
  const challenge = (ts: string) => ({
    status: 401,
    headers: { "www-authenticate": `Hawk ts="${ts}", tsm="x", error="Stale timestamp"` },
    text: "",
    json: undefined,
  });
  const tsOf = (header: string) => Number(/\bts="(\d+)"/.exec(header)?.[1]);

  it.each([
    ["seconds (10 digits)", String(serverS)],
    ["milliseconds (13 digits)", String(serverS * 1000 + 250)],
  ])("reads a challenge ts in %s and signs the repeat with the server's time", async (_unit, ts) => {
    const strategy = new HawkStrategy(readme, { now: () => localMs });
    const req = request("https://api.example.com/api/x", "GET");
    expect(tsOf((await strategy.authorize(req)).headers.authorization!)).toBe(localMs / 1000);
    expect(strategy.onChallenge(challenge(ts))).toBe("retry-once");
    expect(Math.round(strategy.localtimeOffsetMsec / 1000)).toBe(600);
    expect(tsOf((await strategy.authorize(req)).headers.authorization!)).toBe(serverS);
  });
});
