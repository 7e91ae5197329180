/**
 * Exact sums of the amounts a result carries (JSON numbers with a few decimals), so a total the
 * view adds up never drifts from the server's (0.1 + 0.2 is 0.3 here). A number is read from its
 * shortest decimal form into a BigInt at its scale; only the final value becomes a number again.
 */

export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
  value(): number;
}

const make = (units: bigint, scale: number): Decimal => ({
  units,
  scale,
  value: () => Number(units) / 10 ** scale,
});

/** The exact decimal a JSON number stands for (its shortest round-trip form). */
export function decimal(n: number): Decimal {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(n));
  if (!m) return make(BigInt(Math.round(n)), 0); // exponent forms: far beyond any budget's amount
  const fraction = m[3] ?? "";
  return make(BigInt(`${m[1]}${m[2]}${fraction}`), fraction.length);
}

export function plus(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  const up = (d: Decimal) => d.units * 10n ** BigInt(scale - d.scale);
  return make(up(a) + up(b), scale);
}
