/** The view's words in Spanish, as maintenance teams in Latin America say them (es, es-CL, es-MX...). */
import { ageUnits, type Catalogue, isYesterday } from "./catalogue.js";
import { notesEs } from "./notes-es.js";

export const es: Catalogue = (say) => {
  const budgets = (n: number) =>
    say.count(n, { one: "# presupuesto", many: "# de presupuestos", other: "# presupuestos" });
  return {
    title: "Revisión de presupuestos",
    waiting: "Esperando los datos de la revisión…",
    controls: {
      legend: "Volver a ejecutar la revisión",
      status: "Estado",
      period: "Período",
      group: "Agrupar por",
      update: "Actualizar",
    },
    statusChoices: {
      "": "Cualquier estado",
      pending: "Pendiente",
      approved: "Aprobado",
      rejected: "Rechazado o anulado",
    },
    periodChoices: {
      "7": "Últimos 7 días",
      "30": "Últimos 30 días",
      "90": "Últimos 90 días",
      "365": "Últimos 365 días",
      all: "Todas las fechas",
      current: "Período actual",
    },
    groupChoices: {
      currency: "Moneda",
      status: "Estado",
      cost_center: "Centro de costo",
      third_party: "Tercero",
      month: "Mes",
      work_order_status: "Estado de la OT",
      age: "Antigüedad (días)",
      "": "Presupuestos de mayor monto",
    },
    keyHead: {
      currency: "Moneda",
      status: "Estado",
      cost_center: "Centro de costo",
      third_party: "Tercero",
      month: "Mes",
      work_order_status: "Estado de la OT",
      age: "Antigüedad (días)",
    },
    keyPhrase: {
      currency: "moneda",
      status: "estado",
      cost_center: "centro de costo",
      third_party: "tercero",
      month: "mes",
      work_order_status: "estado de la orden de trabajo",
      age: "antigüedad (días)",
    },
    values: {
      status: { pending: "pendiente", approved: "aprobado", rejected: "rechazado" },
      statusLabel: {
        "pending approval": "pendiente de aprobación",
        approved: "aprobado",
        rejected: "rechazado",
        "rejected/cancelled": "rechazado",
      },
      workOrderStatus: {
        "in process": "en proceso",
        "in review": "en revisión",
        finished: "terminada",
        cancelled: "anulada",
      },
      age: { "0-7": "0-7", "8-30": "8-30", "31-60": "31-60", "61-90": "61-90", "over 90": "más de 90" },
    },
    dateBasis: {
      creation_date: "fecha de creación de la OT",
      budget_created: "fecha de creación del presupuesto",
      initial_date: "fecha de inicio",
      final_date: "fecha de término",
      approval_date: "fecha de aprobación",
    },
    window: {
      line: (span) => `Período: ${span}`,
      span: (since, until) => `${since} – ${until}`,
      openStart: "el primer presupuesto",
      openEnd: "ahora",
      everyDate: "todas las fechas",
      notStated: "no indicado",
      basis: (basis) => `por ${basis}`,
      defaultPeriod: "período predeterminado",
      today: (date) => `hoy ${date}`,
    },
    filters: "Filtros:",
    filter: {
      currency: "moneda",
      cost_center: "centro de costo",
      third_party: "tercero",
      id: "folio",
      wo_folio: "orden de trabajo",
    },
    reviewCounts: (scanned, matched) =>
      `Leídos ${say.num(scanned)} · ${say.count(matched, {
        one: "coincide # presupuesto",
        many: "coinciden # de presupuestos",
        other: "coinciden # presupuestos",
      })}`,
    listCounts: (returned, total) => `${say.num(returned)} de ${budgets(total)} en este resultado`,
    scanned: (n) => `leídos ${say.num(n)}`,
    complete: "Completo",
    partial: "Parcial",
    sandbox: "Datos de prueba (sandbox)",
    partialCapped:
      "Parcial: la revisión se detuvo en el máximo de presupuestos que lee en una llamada, así que las cifras cubren solo los presupuestos leídos.",
    partialList: (returned, total, more) =>
      `Parcial: ${say.num(returned)} de ${budgets(total)} están en este resultado${
        more ? "; la siguiente llamada sigue desde ahí" : ""
      }.`,
    partialResumable:
      "Parcial: el servidor se detuvo antes del final del período. «Continuar la revisión» lee el resto sin volver a leer lo ya leído.",
    partialNotes:
      "Parcial: estas cifras no cubren todos los presupuestos del período; las notas de abajo dicen por qué y cómo acotar la revisión.",
    asOf: (time, seconds, sameDay) => {
      const { n, unit } = ageUnits(seconds);
      return `Datos ${sameDay ? "de las" : "del"} ${time}, hace ${say.num(n)} ${unit}`;
    },
    readAgain: "Volver a leer",
    continueReview: "Continuar la revisión",
    noMatch: "Ningún presupuesto coincide con esta revisión.",
    noBudget: "No hay presupuestos en este resultado.",
    footnote:
      "Monto: la suma de los totales de las líneas del presupuesto, antes del descuento y de los impuestos. Nunca se suman monedas distintas.",
    amountHead: "Monto",
    amountDetail: "(líneas, antes de descuento e impuestos)",
    bound: { items_total: "monto", net_total: "monto neto" },
    notes: "Notas",
    note: notesEs(say),
    totalsTitle: "Totales por moneda",
    noIsoCode: "sin código ISO 4217: nunca se suma a otra moneda",
    budgets,
    oldestPending: (days) =>
      `pendiente más antiguo: ${say.count(days, { one: "# día", many: "# de días", other: "# días" })}`,
    none: "(sin valor)",
    chartsTitle: (key) => `Por ${key}`,
    chartCaption: (key) => `monto por ${key}`,
    ageTitle: "Pendientes por antigüedad",
    ageCaption: "presupuestos pendientes por días de espera",
    budgetsHead: "Presupuestos",
    bar: "Barra",
    showAll: (rows) => `Mostrar las ${say.num(rows)} filas`,
    showFirst: (rows) => `Mostrar solo las primeras ${say.num(rows)} filas`,
    largestTitle: "Presupuestos de mayor monto",
    largestCaption: (shown, matched, total) =>
      matched !== undefined && matched > shown
        ? `${say.count(shown, { one: "el de mayor monto", other: "los # de mayor monto" })} de ${budgets(matched)} (${total} entre ellos)`
        : `${budgets(shown)}, ${total} en total`,
    recordHeads: { folio: "Folio", workOrder: "Orden de trabajo", thirdParty: "Tercero", status: "Estado" },
    quotes: ["«", "»"],
    notABudgetResult:
      "Este resultado no contiene datos de presupuestos: la vista muestra resultados de query_budgets.",
    failed: "No se pudo actualizar la revisión.",
    noExplanation: "La llamada falló sin una explicación.",
    updating: "Actualizando la revisión…",
    updated: "Revisión actualizada.",
    updateFailed: "La actualización falló.",
    cancelled: (reason) => (reason ? `Se canceló la llamada: ${reason}` : "Se canceló la llamada."),
    cannotRerun: "Esta aplicación no permite que la vista vuelva a ejecutar la revisión.",
    cannotConnect: (reason) => `La vista no pudo conectarse con la aplicación anfitriona: ${reason}`,
    since: {
      title: (when) => `Desde la revisión del ${when}`,
      added: (n, days) =>
        `${say.count(n, { one: "+# nuevo", other: "+# nuevos" })} ${isYesterday(days) ? "desde ayer" : "desde entonces"}`,
      approved: (n) => say.count(n, { one: "# aprobado", other: "# aprobados" }),
      rejected: (n) => say.count(n, { one: "# rechazado", other: "# rechazados" }),
      gone: (n) => say.count(n, { one: "# ya no coincide", other: "# ya no coinciden" }),
      changed: (n) => say.count(n, { one: "# modificado", other: "# modificados" }),
      removed: (n) => say.count(n, { one: "# eliminado", other: "# eliminados" }),
      unchanged: (n) => say.count(n, { one: "# sin cambios", other: "# sin cambios" }),
      notCompared: (n) =>
        `${say.count(n, { one: "# no comparado", other: "# no comparados" })} (ninguna lectura anterior los cubrió)`,
      partial: "Una de las dos revisiones es parcial: estas cifras cubren lo que ambas leyeron.",
    },
  };
};
