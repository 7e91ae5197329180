/**
 * A client without credentials holding `holders` requests with made-up opaque tokens against an
 * MCP endpoint (interface.md §9c, the red team's round-5 shape): each answered request is sent
 * again at once, until the parent posts "stop". Runs in a worker thread, so that the flood's own
 * work does not share the server's event loop. Posts "shed" at the first 503, then, once stopped,
 * every answer's status, Retry-After and WWW-Authenticate.
 */
import { randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { parentPort, workerData } from "node:worker_threads";

const { url, localAddress, holders, maxSends } = workerData;
const target = new URL(url);
const agent = new Agent({ keepAlive: true, maxSockets: holders });
const answers = [];
let stopped = false;
let sent = 0;
let shedSaid = false;

parentPort.on("message", (message) => {
  if (message === "stop") stopped = true;
});

const one = () =>
  new Promise((resolve) => {
    const token = `made-up-${sent++}-${randomBytes(6).toString("hex")}`;
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        agent,
        localAddress,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => {
          answers.push([res.statusCode ?? 0, res.headers["retry-after"], res.headers["www-authenticate"]]);
          if (res.statusCode === 503 && !shedSaid) {
            shedSaid = true;
            parentPort.postMessage({ type: "shed" });
          }
          resolve();
        });
      },
    );
    req.on("error", () => {
      answers.push([0, undefined, undefined]);
      resolve();
    });
    req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }));
  });

const holder = async () => {
  while (!stopped && sent < maxSends) await one();
};

await Promise.all(Array.from({ length: holders }, holder));
agent.destroy();
parentPort.postMessage({ type: "done", sent, answers });
