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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
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
      return decodeArgs(parseJson(trimmed), schema);
    }
    if (acceptsString(schema, value)) return value;
    if ((accepts.has("integer") || accepts.has("number")) && NUMERIC.test(trimmed)) return Number(trimmed);
    if (accepts.has("boolean") && (trimmed === "true" || trimmed === "false")) return trimmed === "true";
    return value;
  }
  if (Array.isArray(value)) {
    const itemSchema = schema.items ?? schema.anyOf?.find((s) => s.items)?.items;
    return itemSchema ? value.map((v) => decodeArgs(v, itemSchema)) : value;
  }
  if (value !== null && typeof value === "object") {
    const props = propertiesFor(value as Record<string, unknown>, schema);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = props[k] ? decodeArgs(v, props[k]) : v;
    return out;
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
