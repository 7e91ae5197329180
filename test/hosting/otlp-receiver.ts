/**
 * A loopback OTLP/HTTP receiver (JSON protocol): keeps every POST /v1/traces body and its spans. It can
 * misbehave as collectors do: answer late, refuse large bodies with 413, or fail echoing the request.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";

export interface ReceivedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
}

interface OtlpKeyValue {
  key: string;
  value: Record<string, unknown>;
}

function attrs(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    const v = Object.values(value)[0];
    out[key] = value.intValue !== undefined ? Number(value.intValue) : v;
  }
  return out;
}

export interface ReceiverOptions {
  /** Wait this long before answering each export. */
  delayMs?: number;
  /** Refuse (413, not kept) a body larger than this. */
  maxBodyBytes?: number;
  /** Answer every export with this status and a body echoing the request headers and a long text. */
  failEchoing?: number;
}

export async function startOtlpReceiver(options: ReceiverOptions = {}) {
  const bodies: string[] = [];
  /** Sizes of the bodies refused with 413. */
  const refused: number[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      const raw = Buffer.concat(chunks);
      if (options.maxBodyBytes !== undefined && raw.length > options.maxBodyBytes) {
        refused.push(raw.length);
        res.writeHead(413, { "content-type": "text/plain" }).end("payload too large");
        return;
      }
      if (options.failEchoing !== undefined) {
        const echo = `rejected request with headers ${JSON.stringify(req.headers)}; ${"details ".repeat(5_000)}`;
        res.writeHead(options.failEchoing, { "content-type": "text/plain" }).end(echo);
        return;
      }
      const text = raw.toString("utf8");
      bodies.push(text);
      headers.push(req.headers);
      if (req.headers["content-type"] === "application/x-protobuf") {
        // Accepted, not decoded: the JSON protocol is what the assertions read.
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
        return;
      }
      if (req.headers["content-type"] !== "application/json") {
        res.writeHead(415).end();
        return;
      }
      const doc = JSON.parse(text) as {
        resourceSpans: {
          resource?: { attributes?: OtlpKeyValue[] };
          scopeSpans: {
            spans: (Omit<ReceivedSpan, "attributes" | "events" | "resource"> & {
              attributes?: OtlpKeyValue[];
              events?: { name: string; attributes?: OtlpKeyValue[] }[];
            })[];
          }[];
        }[];
      };
      for (const rs of doc.resourceSpans)
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans)
            spans.push({
              ...s,
              attributes: attrs(s.attributes),
              events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attrs(e.attributes) })),
              resource: attrs(rs.resource?.attributes),
            });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies,
    refused,
    headers,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
