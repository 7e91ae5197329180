/** The server's notes in Spanish (Latin America), for a person rather than the agent. */
import type { NoteCode } from "../contract.js";
import type { NoteMessage, Say } from "./catalogue.js";

export const notesEs = (say: Say): Record<NoteCode, NoteMessage> => {
  const budgets = (n: string | number) =>
    say.count(Number(n), { one: "# presupuesto", many: "# de presupuestos", other: "# presupuestos" });
  const of = (p: Readonly<Record<string, string>>, v: Readonly<Record<string, unknown>>, read: string) =>
    !("api_total" in v) ? budgets(v[read] as number) : `${p[read]} de ${budgets(v.api_total as number)}`;
  const lookup = (p: Readonly<Record<string, string>>, v: Readonly<Record<string, unknown>>) =>
    `${v.by === "work_order" ? "la orden de trabajo" : "el folio"} ${p.value}`;
  return {
    result_cut_to_fit: (p) =>
      `Solo los primeros ${p.kept} presupuestos caben en un resultado; la siguiente llamada sigue desde el presupuesto ${p.next_start}.`,
    fields_cut: (_p, v) =>
      say.count(v.records as number, {
        one: "# presupuesto tiene texto de la plataforma demasiado largo para mostrarlo entero: se corta con “…”.",
        other:
          "# presupuestos tienen texto de la plataforma demasiado largo para mostrarlo entero: se corta con “…”.",
      }),
    start_past_end: (_p, v) =>
      `Esta página empieza después del último presupuesto: coinciden ${budgets(v.total!)}.`,
    no_match_default_window: () =>
      "El período es el predeterminado, los últimos 30 días: elija un período más largo u otro estado.",
    no_match_window: () => "Elija un período más largo (todas las fechas) u otro estado.",
    no_match_lookup: (p, v) => `No hay presupuestos para ${lookup(p, v)} en ninguna fecha: revise el número.`,
    no_match_lookup_window: (p, v) =>
      `No hay presupuestos para ${lookup(p, v)} en este período; puede tenerlos en otra fecha.`,
    no_match_lookup_filters: (p, v) =>
      `Ningún presupuesto de ${lookup(p, v)} cumple ${p.filters}${v.scope === "window" ? " en este período" : " en ninguna fecha"}.`,
    no_match_scanned: (_p, v) => `Ninguno de los ${budgets(v.scanned!)} leídos cumple los filtros.`,
    currency_unmapped: (p) =>
      `La moneda ${p.name} no tiene código ISO 4217: se muestra con ese nombre y nunca se suma a otra moneda.`,
    currency_filter_unknown: (p) =>
      `La moneda ${p.currency} no es un código ISO 4217 ni un nombre de moneda conocido: se buscó por el nombre tal como está escrito.`,
    mixed_currencies_sorted: (p, v) =>
      `Ordenados dentro de cada moneda (${say.count(v.currencies as number, { one: "# moneda", other: "# monedas" })}, hasta los ${p.per_currency} de mayor monto de cada una): nunca se comparan montos de monedas distintas.`,
    rejected_includes_cancelled: () =>
      "Rechazado incluye los presupuestos anulados: la plataforma registra ambos con un solo estado. La fecha de decisión de un presupuesto rechazado es la fecha en que se decidió.",
    cancelled_same_as_rejected: () =>
      "Anulado es el mismo conjunto que rechazado: la plataforma registra ambos con un solo estado.",
    work_orders_repeated: (p, v) =>
      `${say.count(v.count as number, { one: "# orden de trabajo tiene", many: "# de órdenes de trabajo tienen", other: "# órdenes de trabajo tienen" })} más de un presupuesto (${budgets(v.budgets!)} entre todas)${Number(v.shown) < Number(v.count) ? `; se listan las ${p.shown} con más presupuestos` : ""}.`,
    work_orders_none_repeated: (_p, v) =>
      `Ninguna orden de trabajo tiene más de un presupuesto (${say.count(v.work_orders as number, { one: "# orden de trabajo", many: "# de órdenes de trabajo", other: "# órdenes de trabajo" })}).`,
    api_total_changed: (p) =>
      `El total de la plataforma cambió durante la lectura (${p.first} y luego ${p.then}): se agregaron o quitaron presupuestos entretanto.`,
    page_repeated: () => "La plataforma envió presupuestos ya leídos: la lectura se detuvo ahí.",
    pages_overlapped: (_p, v) =>
      `${budgets(v.repeated!)} llegaron más de una vez (se contaron una vez), así que otros pueden no haberse enviado.`,
    page_short: (p) =>
      `Una página trajo ${p.got} presupuestos donde correspondían ${p.due} (la plataforma cuenta ${p.api_total}).`,
    budgets_skipped: (p, v) =>
      `${budgets(v.count!)} quedaron fuera: sus montos no son dinero (folios ${p.folios}).`,
    month_basis: (_p, v) =>
      `Los meses son los de ${v.month_of === "approval" ? "la decisión del presupuesto" : v.month_of === "task_end" ? "el término de la tarea" : "la creación del presupuesto"}.`,
    dates_unreadable: (_p, v) => `${budgets(v.count!)} quedaron fuera: su fecha de creación no es una fecha.`,
    review_partial_deadline: (p, v) =>
      `La revisión se detuvo en el tiempo límite de la llamada, tras ${of(p, v, "read")}.`,
    review_partial_rate_limited: (p, v) =>
      `La revisión se detuvo en el límite de llamadas de la plataforma (se renueva a las ${p.reset_at}), tras ${of(p, v, "read")}.`,
    review_partial_failed: (p, v) =>
      `La revisión se detuvo por una falla de la plataforma (${p.error}), tras ${of(p, v, "read")}.`,
    review_capped: (p, v) =>
      `La revisión se detuvo en su límite de ${p.max_records} presupuestos, tras ${of(p, v, "scanned")}.`,
    groups_cut: (p) =>
      `Se muestran ${p.shown} de ${p.groups} grupos (los de mayor monto de cada moneda) para caber en un resultado.`,
    notes_left_out: (_p, v) =>
      say.count(v.count as number, {
        one: "(# nota más quedó fuera.)",
        other: "(# notas más quedaron fuera.)",
      }),
    history_none: () =>
      "No hay una revisión anterior de estos filtros; esta queda guardada para la próxima vez.",
    history_unreadable: () => "No se pudo leer el historial guardado: no se comparó.",
    changes_within_partial: () =>
      "Una de las dos revisiones es parcial: los cambios son dentro de lo que ambas leyeron.",
    history_first_review: () =>
      "No se guarda nada leído antes con qué comparar; esta revisión queda guardada para la próxima vez.",
    history_off: (p) => `No se comparó: el historial de revisiones está desactivado (${p.reason}).`,
    history_unavailable: (p) => `El historial de revisiones no se pudo usar esta vez (${p.reason}).`,
    history_partial: (_p, v) =>
      `${v.partial === "this" ? "Esta revisión" : "La revisión anterior"} es parcial: no se sabe qué presupuestos salieron de ella.`,
    history_not_stored: () => "Esta revisión no se pudo guardar en el historial esta vez.",
  };
};
