/**
 * The steps of the call wrapper (src/mcp/server.ts runTool): decode, confirm, run, scrub, and the
 * audit log, each on its own. test/protocol/server.test.ts runs them together through the SDK.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError, NotConfirmedError } from "../../src/errors/api-error.js";
import { SecretScope } from "../../src/errors/secret.js";
import { ConfirmationPending } from "../../src/mcp/sdk.js";
import {
  auditTrail,
  confirmationOf,
  confirmWrite,
  decodeInput,
  failedCall,
  outcomeOf,
  scrubbedResult,
} from "../../src/mcp/server.js";
import { createLogger } from "../../src/telemetry/logger.js";
import addTaskResources from "../../tools/add-task-resources.js";

const entry = {
  tool: addTaskResources,
  inputJson: z.toJSONSchema(addTaskResources.inputSchema, { io: "input", target: "draft-7" }) as Record<
    string,
    unknown
  >,
};

function recordingLogger() {
  const records: Record<string, unknown>[] = [];
  const logger = createLogger({ level: "debug", sink: (line) => records.push(JSON.parse(line)) });
  return { logger, records };
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe("decodeInput (step 1, decode)", () => {
  it("decodes arguments sent as JSON text and numbers as strings, then validates them", () => {
    const decoded = decodeInput(entry, {
      id_group_task: "1",
      id_task: 101,
      resources: '[{"type_description":"SERVICES","id_service_type":5}]',
    });
    expect(decoded).toEqual({
      input: {
        id_group_task: 1,
        id_task: 101,
        resources: [{ type_description: "SERVICES", id_service_type: 5 }],
      },
    });
  });

  it("refuses arguments that are not an object, naming what came and the tool's example", () => {
    const decoded = decodeInput(entry, [1, 2]);
    expect(decoded).toMatchObject({ details: {} });
    const { problem } = decoded as { problem: string };
    expect(problem).toMatch(/^Invalid arguments for add_task_resources: "arguments" must be a JSON object/);
    expect(problem).toContain("(got an array)");
    expect(problem).toContain("Call it like {");
    expect(problem).toMatch(/Nothing was sent\.$/);
  });

  it("lists every schema issue with its path, in the line and in the details", () => {
    const decoded = decodeInput(entry, { id_group_task: "x" }) as {
      problem: string;
      details: { issues: { path: string; message: string }[] };
    };
    const paths = decoded.details.issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(["id_group_task", "id_task", "resources"]));
    for (const path of paths) expect(decoded.problem).toContain(`${path}: `);
  });

  it("reads absent arguments as an empty object", () => {
    const decoded = decodeInput(entry, undefined) as { problem: string };
    expect(decoded.problem).toContain("id_task: ");
  });
});

describe("confirmationOf and confirmWrite (step 2, confirm)", () => {
  const reason = () => ({ why: "this client cannot ask", fix: "Use another client" });

  it.each([
    [false, true, "not_asked"],
    [false, false, "not_asked"],
    [true, true, "would_ask"],
    [true, false, "refused"],
  ] as const)("confirmWrites %s, client can ask %s: %s", (confirmWrites, canConfirm, state) => {
    const check = confirmationOf({ canConfirm: () => canConfirm, unsupportedReason: reason }, confirmWrites);
    expect(check.state).toBe(state);
    if (check.state === "refused") {
      expect(check.detail).toBe(
        "this server runs with --confirm-writes, and this client cannot ask, so the real call would be refused and write nothing. Use another client, or restart the server without --confirm-writes.",
      );
    }
  });

  it("asks nobody without --confirm-writes", async () => {
    const asked: string[] = [];
    const call = {
      confirm: async (m: string) => {
        asked.push(m);
        return "declined" as const;
      },
      unsupportedReason: reason,
    };
    await confirmWrite(call, false, "write it?");
    expect(asked).toEqual([]);
  });

  it("passes an approval, refuses a decline and a client that cannot ask, with the fix", async () => {
    const answering = (answer: "approved" | "declined" | "unsupported") => ({
      confirm: async () => answer,
      unsupportedReason: reason,
    });
    await expect(confirmWrite(answering("approved"), true, "write it?")).resolves.toBeUndefined();
    await expect(confirmWrite(answering("declined"), true, "write it?")).rejects.toThrow(
      new NotConfirmedError("The user did not approve this write; nothing was written."),
    );
    await expect(confirmWrite(answering("unsupported"), true, "write it?")).rejects.toThrow(
      "This server runs with --confirm-writes, and this client cannot ask, so nothing was written. Use another client, or restart the server without --confirm-writes.",
    );
  });
});

describe("outcomeOf (step 3, run)", () => {
  it.each([
    [{ dry_run: true, replayed: true }, "dry_run"],
    [{ dry_run: false, replayed: true }, "replayed"],
    [{ folio: 7 }, "ok"],
  ])("%j is audited %s", (out, outcome) => {
    expect(outcomeOf(out)).toBe(outcome);
  });
});

describe("scrubbedResult and failedCall (step 4, scrub)", () => {
  const secrets = new SecretScope();
  secrets.add("s3cr3t-token-value");
  const tool = { toText: (out: unknown) => `note: ${(out as { note: string }).note}` };

  it("marks a sandbox result in both parts and scrubs a secret from both", () => {
    const result = scrubbedResult(tool, { note: "echo s3cr3t-token-value" }, true, secrets);
    expect(result.structuredContent).toMatchObject({ sandbox: true });
    expect(JSON.stringify(result)).not.toContain("s3cr3t-token-value");
    expect(textOf(result)).toMatch(/^\[sandbox\] note: echo /);
  });

  it("leaves a live result unmarked", () => {
    const result = scrubbedResult(tool, { note: "fine" }, false, secrets);
    expect(result.structuredContent).toEqual({ note: "fine" });
    expect(textOf(result)).toBe("note: fine");
  });

  it("turns an ApiError into one redacted error result and audits its code", () => {
    const audited: string[] = [];
    const { logger, records } = recordingLogger();
    const error = new ApiError({
      code: "NOT_FOUND",
      status: 404,
      message: "task 9 not found (s3cr3t-token-value)",
    });
    const result = failedCall(
      error,
      { signal: new AbortController().signal },
      logger,
      (o) => audited.push(o),
      secrets,
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("task 9 not found");
    expect(textOf(result)).not.toContain("s3cr3t-token-value");
    expect(audited).toEqual(["NOT_FOUND"]);
    expect(records).toEqual([]);
  });

  it("logs an unexpected error as INTERNAL; a cancelled call is audited as cancelled", () => {
    const audited: string[] = [];
    const { logger, records } = recordingLogger();
    failedCall(
      new TypeError("boom"),
      { signal: new AbortController().signal },
      logger,
      (o) => audited.push(o),
      secrets,
    );
    const aborted = new AbortController();
    aborted.abort();
    failedCall(new TypeError("boom"), { signal: aborted.signal }, logger, (o) => audited.push(o), secrets);
    expect(audited).toEqual(["INTERNAL", "cancelled"]);
    expect(records.map((r) => r.msg)).toEqual(["unexpected error in tool", "unexpected error in tool"]);
  });

  it("answers a refused confirmation with its message and code", () => {
    const result = failedCall(
      new NotConfirmedError("The user did not approve this write; nothing was written."),
      { signal: new AbortController().signal },
      recordingLogger().logger,
      () => {},
      secrets,
    );
    expect(textOf(result)).toBe(
      'The user did not approve this write; nothing was written.\nDetails: {"code":"NOT_CONFIRMED"}',
    );
  });

  it("lets a confirmation round through, audited as awaiting confirmation", () => {
    const audited: string[] = [];
    const pending = new ConfirmationPending("write it?");
    expect(() =>
      failedCall(
        pending,
        { signal: new AbortController().signal },
        recordingLogger().logger,
        (o) => audited.push(o),
        secrets,
      ),
    ).toThrow(pending);
    expect(audited).toEqual(["awaiting_confirmation"]);
  });
});

describe("auditTrail", () => {
  it("logs a writer's outcome with its target and duration", () => {
    const { logger, records } = recordingLogger();
    auditTrail(logger, true)("ok", "task 1/101");
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ msg: "audit", audit: true, target: "task 1/101", outcome: "ok" });
    expect(records[0]!.duration_ms).toEqual(expect.any(Number));
  });

  it("logs nothing for a reader", () => {
    const { logger, records } = recordingLogger();
    auditTrail(logger, false)("ok");
    expect(records).toEqual([]);
  });
});
