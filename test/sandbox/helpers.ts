/**
 * Test helpers for the sandbox suite: raw HTTP through `fetch` (never the project's client,
 * which the sandbox is an oracle for), token fetching and Hawk-signed requests.
 */
import { request as httpRequest } from "node:http";
import Hawk from "hawk";
import {
  DEMO_CREDENTIALS,
  type SandboxHandle,
  type SandboxOptions,
  startSandbox,
} from "../../src/sandbox/index.js";

export interface HawkCredentials {
  id: string;
  key: string;
  algorithm: "sha256";
}
export const HAWK: HawkCredentials = {
  id: DEMO_CREDENTIALS.hawk.id,
  key: DEMO_CREDENTIALS.hawk.key,
  algorithm: "sha256",
};
export const HAWK_OTHER: HawkCredentials = {
  id: DEMO_CREDENTIALS.hawkOther.id,
  key: DEMO_CREDENTIALS.hawkOther.key,
  algorithm: "sha256",
};

export type ClientName = keyof typeof DEMO_CREDENTIALS.oauth;

/** A fixed, settable clock (epoch ms). */
export function fixedClock(start = Date.UTC(2025, 5, 15, 12, 0, 0)) {
  let t = start;
  return {
    now: () => t,
    set: (ms: number) => {
      t = ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
}

export async function start(options: SandboxOptions = {}): Promise<SandboxHandle> {
  return startSandbox({ ...options });
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
}

export async function token(sb: SandboxHandle, client: ClientName = "demo"): Promise<string> {
  const c = DEMO_CREDENTIALS.oauth[client];
  const res = await fetch(`${sb.authUrl}/oauth/token`, {
    method: "POST",
    headers: {
      Authorization: basic(c.clientId, c.clientSecret),
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  });
  if (res.status !== 200) throw new Error(`token: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

async function answer<T>(res: Response): Promise<Answer<T>> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: body as T, text };
}

/** An envelope as the main API answers. */
export interface Envelope<D = unknown> {
  success: boolean;
  message: string;
  data: D;
  total: number;
}

/** Bearer request; `path` is relative to the origin (e.g. "/api/wo_budget"). */
export async function bearer<T = Envelope>(
  sb: SandboxHandle,
  tok: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer<T>> {
  const headers: Record<string, string> = { Authorization: `Bearer ${tok}`, Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(`${sb.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return answer<T>(res);
}

export interface HawkOptions {
  /** Server clock (the sandbox's clock); the signer's offset is computed from it unless given. */
  clock?: { now(): number };
  credentials?: HawkCredentials;
  payloadHash?: boolean;
  timestamp?: number;
  nonce?: string;
  localtimeOffsetMsec?: number;
  /** Body bytes to send instead of the signed payload (to test a bad payload hash). */
  sendInstead?: string;
}

/** Hawk-signed request; returns the answer and the artifacts (to verify Server-Authorization). */
export async function hawk<T = Envelope>(
  sb: SandboxHandle,
  method: string,
  path: string,
  body?: unknown,
  opts: HawkOptions = {},
): Promise<Answer<T> & { artifacts: Hawk.crypto.Artifacts; credentials: HawkCredentials }> {
  const credentials = opts.credentials ?? HAWK;
  const url = `${sb.url}${path}`;
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  const contentType = "application/json";
  const { header, artifacts } = Hawk.client.header(url, method, {
    credentials,
    timestamp: opts.timestamp,
    nonce: opts.nonce,
    localtimeOffsetMsec: opts.localtimeOffsetMsec ?? (opts.clock ? opts.clock.now() - Date.now() : undefined),
    ...(payload !== undefined && opts.payloadHash !== false ? { payload, contentType } : {}),
  });
  const headers: Record<string, string> = { Authorization: header, Accept: "application/json" };
  if (payload !== undefined) headers["Content-Type"] = contentType;
  const res = await fetch(url, { method, headers, body: opts.sendInstead ?? payload });
  return { ...(await answer<T>(res)), artifacts, credentials };
}

/** Verify a response's Server-Authorization / WWW-Authenticate with hawk's client. */
export function hawkVerify(
  a: { headers: Headers; text: string; artifacts: Hawk.crypto.Artifacts; credentials: HawkCredentials },
  required = true,
) {
  const headers: Record<string, string> = {};
  a.headers.forEach((v, k) => {
    headers[k] = v;
  });
  return Hawk.client.authenticate({ headers } as never, a.credentials, a.artifacts, {
    payload: a.text,
    required,
  });
}

/**
 * A request through node:http (fetch turns a 407 into a network error, per the Fetch standard,
 * so the Hawk 407 answer must be read this way).
 */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers as Record<string, string>,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}
