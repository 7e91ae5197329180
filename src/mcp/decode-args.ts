/**
 * Some MCP clients send nested arguments as JSON strings (`"resources": "[{...}]"`) and numbers
 * or booleans as strings (mcp-notes "What users ask for" #9). Before validation, walk the
 * arguments beside the tool's JSON Schema and decode exactly those values, nothing else; what
 * cannot be decoded is left for the validator to reject with a clear message.
 */

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
};

const NUMERIC = /^-?\d+(\.\d+)?$/;

function types(schema: JsonSchema): Set<string> {
  const out = new Set<string>();
  const add = (s: JsonSchema) => {
    if (typeof s.type === "string") out.add(s.type);
    else if (Array.isArray(s.type)) for (const t of s.type) out.add(t);
    if (s.enum) for (const v of s.enum) out.add(typeof v === "number" ? "number" : typeof v);
    if (s.const !== undefined) out.add(typeof s.const === "number" ? "number" : typeof s.const);
  };
  add(schema);
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) add(alt);
  return out;
}

/** Whether the schema takes this exact string: a free string, or one of its enum values. */
function acceptsString(schema: JsonSchema, value: string): boolean {
  const all = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  return all.some(
    (s) =>
      (s.type === "string" && s.enum === undefined) || s.enum?.includes(value) === true || s.const === value,
  );
}

/** The parsed value, or undefined when the text is not JSON. */
function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

export function decodeArgs(value: unknown, schema: JsonSchema): unknown {
  const accepts = types(schema);
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (
      (accepts.has("object") && trimmed.startsWith("{")) ||
      (accepts.has("array") && trimmed.startsWith("["))
    ) {
      // IMPORTANT: recurse only on a parsed non-string value; text that is not JSON stays text for the validator.
      const parsed = parseJson(trimmed);
      return parsed === undefined || typeof parsed.value === "string"
        ? value
        : decodeArgs(parsed.value, schema);
    }
    if (acceptsString(schema, value)) return value;
    if ((accepts.has("integer") || accepts.has("number")) && NUMERIC.test(trimmed)) return Number(trimmed);
    if (accepts.has("boolean") && (trimmed === "true" || trimmed === "false")) return trimmed === "true";
    return value;
  }
  // interface.md §6: a whole number where only text is expected (a folio or code: "id": 109) means its digits.
  if (
    typeof value === "number" &&
    Number.isSafeInteger(value) &&
    value >= 0 &&
    accepts.has("string") &&
    !accepts.has("number") &&
    !accepts.has("integer")
  ) {
    return String(value);
  }
  if (Array.isArray(value)) {
    const itemSchema = schema.items ?? schema.anyOf?.find((s) => s.items)?.items;
    return itemSchema ? value.map((v) => decodeArgs(v, itemSchema)) : value;
  }
  if (value !== null && typeof value === "object") {
    const props = propertiesFor(value as Record<string, unknown>, schema);
    const entries = Object.entries(value);
    // A JSON "__proto__" key can reach us as the prototype (the SDK's own parse assigns keys):
    // restore it as a key so the strict schema refuses it by name instead of dropping it.
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) entries.push(["__proto__", proto]);
    // fromEntries defines own properties: "__proto__" stays a key, never the prototype.
    return Object.fromEntries(
      entries.map(([k, v]) => [k, Object.hasOwn(props, k) ? decodeArgs(v, props[k]!) : v]),
    );
  }
  return value;
}

/** Properties of an object schema; for a union of objects, the branch whose `const` fields match. */
function propertiesFor(value: Record<string, unknown>, schema: JsonSchema): Record<string, JsonSchema> {
  if (schema.properties) return schema.properties;
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].filter((b) => b.properties);
  const match = branches.find((b) =>
    Object.entries(b.properties!).some(([k, p]) => p.const !== undefined && value[k] === p.const),
  );
  return match?.properties ?? Object.assign({}, ...branches.map((b) => b.properties));
}
