/**
 * Who a budget's third party is (interface.md §6g): its code as the API gives it
 * (`third_parties_code`) and its role read from that code's prefix (SUP- a supplier, CUS- a
 * customer; the platform's codes, api-spec §2.3 and the sandbox seed); no role when the code says
 * neither. Records, summary rows and subtotals by third party carry both, so no call is made to ask.
 */
import { shown } from "./upstream-text.js";

export type Role = "supplier" | "customer";

const PREFIXES: [RegExp, Role][] = [
  [/^(SUP|PRV|PROV)[-_ ]/i, "supplier"],
  [/^(CUS|CLI)[-_ ]/i, "customer"],
];

/** The role a third-party code names by its prefix, if any. */
export function roleOf(code: string | null | undefined): Role | undefined {
  if (typeof code !== "string") return undefined;
  return PREFIXES.find(([re]) => re.test(code.trim()))?.[1];
}

/** The fields a record or row adds: the code, and the role when the code names one. */
export function thirdPartyFields(code: string | null | undefined): {
  third_party_code?: string;
  third_party_role?: Role;
} {
  if (typeof code !== "string" || code === "") return {};
  const role = roleOf(code);
  return { third_party_code: code, ...(role ? { third_party_role: role } : {}) };
}

/** "Industrial Supply Co. (SUP-001, supplier)": a name with its code and role, upstream text shown safe. */
export function thirdPartyText(
  name: string | null | undefined,
  fields: { third_party_code?: string | undefined; third_party_role?: Role | undefined },
): string {
  const code = fields.third_party_code;
  if (code === undefined) return shown(name ?? null);
  const role = fields.third_party_role;
  // A name that already says its role ("Andes Mining (customer)") is not told it twice.
  const said = role !== undefined && (name ?? "").toLowerCase().includes(role);
  return `${shown(name ?? null)} (${shown(code)}${role && !said ? `, ${role}` : ""})`;
}

/**
 * The codes met under each third-party name while a summary adds budgets (groups are by name):
 * one code per name, as the platform has; several are listed, comma-separated.
 */
export class ThirdPartyCodes {
  readonly #codes = new Map<string | null, Set<string>>();

  add(b: { third_parties_code?: string | null; third_parties_name?: string | null }): void {
    const code = b.third_parties_code;
    if (typeof code !== "string" || code === "") return;
    const name = b.third_parties_name ?? null;
    const set = this.#codes.get(name) ?? new Set<string>();
    set.add(code);
    this.#codes.set(name, set);
  }

  /** The code fields of a name's row (several codes: all of them, no role unless they agree). */
  of(name: string | null | undefined): ReturnType<typeof thirdPartyFields> {
    const codes = [...(this.#codes.get(name ?? null) ?? [])].sort();
    if (codes.length <= 1) return thirdPartyFields(codes[0]);
    const roles = new Set(codes.map(roleOf));
    const role = roles.size === 1 ? [...roles][0] : undefined;
    return { third_party_code: codes.join(", "), ...(role ? { third_party_role: role } : {}) };
  }

  /** Rows (groups or subtotals) with a third_party key, given their code and role. */
  decorate(rows: readonly { [key: string]: unknown }[]): void {
    for (const row of rows)
      if ("third_party" in row) Object.assign(row, this.of(row.third_party as string | null));
  }
}
