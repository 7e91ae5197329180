/**
 * The misbehaving tenant of bench section 9 (tenants), in its own process so that its client work is
 * not timed with the good tenant's. IPC: {cmd: "start", url, token, polite} → {started: true};
 * {cmd: "stop"} → the counts of what the server answered. Every loop is bounded in count as well as
 * stopped at the end of its round.
 */
import { connect } from "node:net";

const STALLED = 24;
const FLOOD_LIMIT = 16;
const FLOOD_EXTRA = 8;
const MAX_REQUESTS_PER_LOOP = 5_000;

const legacyCall = (id) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "list_warehouse_groups_1", arguments: {} },
});

async function post(url, token, body) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  await res.arrayBuffer();
  return res.status;
}

/** A request whose headers are sent and whose body never completes. */
function stalledBody(url, token) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname, () => {
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer ${token}\r\nContent-Length: 500000\r\n\r\n{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {`,
    );
  });
  socket.on("error", () => {});
  return socket;
}

/** Stalled bodies, a loop of batches, and a flood past the tenant's limit; `polite`: the flood at the limit only. */
function misbehave(url, token, polite) {
  const counts = { served: 0, limited: 0, batchRefused: 0, other: 0, stalled: polite ? 0 : STALLED };
  let on = true;
  const sockets = polite ? [] : Array.from({ length: STALLED }, () => stalledBody(url, token));
  const batch = Array.from({ length: 50 }, (_, i) => legacyCall(i));
  const loop = (fn) =>
    (async () => {
      for (let i = 0; on && i < MAX_REQUESTS_PER_LOOP; i++) await fn(i);
    })();
  const batches = () =>
    loop(async () => {
      const status = await post(url, token, batch).catch(() => 0);
      if (status === 400) counts.batchRefused++;
      else counts.other++;
      await new Promise((r) => setTimeout(r, 20));
    });
  const flood = Array.from({ length: FLOOD_LIMIT + (polite ? 0 : FLOOD_EXTRA) }, () =>
    loop(async (i) => {
      const status = await post(url, token, legacyCall(i)).catch(() => 0);
      if (status === 200) counts.served++;
      else if (status === 429) {
        counts.limited++;
        await new Promise((r) => setTimeout(r, 50));
      } else counts.other++;
    }),
  );
  const loops = polite ? flood : [batches(), ...flood];
  return {
    async stop() {
      on = false;
      for (const s of sockets) s.destroy();
      await Promise.all(loops);
      return counts;
    },
  };
}

let running;
process.on("message", async (msg) => {
  if (msg.cmd === "start") {
    running = misbehave(msg.url, msg.token, msg.polite);
    process.send({ started: true });
  } else if (msg.cmd === "stop") {
    const counts = await running.stop();
    running = undefined;
    process.send(counts);
  }
});
