/** The server's notes in Brazilian Portuguese, for a person rather than the agent. */
import type { NoteCode } from "../contract.js";
import type { NoteMessage, Say } from "./catalogue.js";

export const notesPt = (say: Say): Record<NoteCode, NoteMessage> => {
  const budgets = (n: string | number) =>
    say.count(Number(n), { one: "# orçamento", many: "# de orçamentos", other: "# orçamentos" });
  const of = (p: Readonly<Record<string, string>>, v: Readonly<Record<string, unknown>>, read: string) =>
    !("api_total" in v) ? budgets(v[read] as number) : `${p[read]} de ${budgets(v.api_total as number)}`;
  const lookup = (p: Readonly<Record<string, string>>, v: Readonly<Record<string, unknown>>) =>
    `${v.by === "work_order" ? "a ordem de serviço" : "o folio"} ${p.value}`;
  return {
    result_cut_to_fit: (p) =>
      `Só os primeiros ${p.kept} orçamentos cabem em um resultado; a próxima chamada continua a partir do orçamento ${p.next_start}.`,
    fields_cut: (_p, v) =>
      say.count(v.records as number, {
        one: "# orçamento tem texto da plataforma longo demais para mostrar inteiro: é cortado com “…”.",
        other: "# orçamentos têm texto da plataforma longo demais para mostrar inteiro: é cortado com “…”.",
      }),
    start_past_end: (_p, v) =>
      `Esta página começa depois do último orçamento: ${budgets(v.total!)} correspondem.`,
    no_match_default_window: () =>
      "O período é o padrão, os últimos 30 dias: escolha um período mais longo ou outra situação.",
    no_match_window: () => "Escolha um período mais longo (todas as datas) ou outra situação.",
    no_match_lookup: (p, v) => `Nenhum orçamento para ${lookup(p, v)} em nenhuma data: confira o número.`,
    no_match_lookup_window: (p, v) =>
      `Nenhum orçamento para ${lookup(p, v)} neste período; pode haver em outra data.`,
    no_match_lookup_filters: (p, v) =>
      `Nenhum orçamento de ${lookup(p, v)} atende a ${p.filters}${v.scope === "window" ? " neste período" : " em nenhuma data"}.`,
    no_match_scanned: (_p, v) => `Nenhum dos ${budgets(v.scanned!)} lidos atende aos filtros.`,
    currency_unmapped: (p) =>
      `A moeda ${p.name} não tem código ISO 4217: aparece com esse nome e nunca é somada a outra moeda.`,
    currency_filter_unknown: (p) =>
      `A moeda ${p.currency} não é um código ISO 4217 nem um nome de moeda conhecido: buscada pelo nome como está escrito.`,
    mixed_currencies_sorted: (p, v) =>
      `Ordenados dentro de cada moeda (${say.count(v.currencies as number, { one: "# moeda", other: "# moedas" })}, até os ${p.per_currency} maiores de cada uma): valores em moedas diferentes nunca são comparados.`,
    rejected_includes_cancelled: () =>
      "Rejeitado inclui os orçamentos cancelados: a plataforma registra os dois com uma só situação. A data de decisão de um orçamento rejeitado é a data em que foi decidido.",
    cancelled_same_as_rejected: () =>
      "Cancelado é o mesmo conjunto que rejeitado: a plataforma registra os dois com uma só situação.",
    work_orders_repeated: (p, v) =>
      `${say.count(v.count as number, { one: "# ordem de serviço tem", many: "# de ordens de serviço têm", other: "# ordens de serviço têm" })} mais de um orçamento (${budgets(v.budgets!)} ao todo)${Number(v.shown) < Number(v.count) ? `; aparecem as ${p.shown} com mais orçamentos` : ""}.`,
    work_orders_none_repeated: (_p, v) =>
      `Nenhuma ordem de serviço tem mais de um orçamento (${say.count(v.work_orders as number, { one: "# ordem de serviço", many: "# de ordens de serviço", other: "# ordens de serviço" })}).`,
    api_total_changed: (p) =>
      `O total da plataforma mudou durante a leitura (${p.first}, depois ${p.then}): orçamentos foram incluídos ou removidos nesse meio-tempo.`,
    page_repeated: () => "A plataforma enviou orçamentos já lidos: a leitura parou aí.",
    pages_overlapped: (_p, v) =>
      `${budgets(v.repeated!)} vieram mais de uma vez (contados uma vez), então outros podem não ter sido enviados.`,
    page_short: (p) =>
      `Uma página trouxe ${p.got} orçamentos onde eram devidos ${p.due} (a plataforma conta ${p.api_total}).`,
    budgets_skipped: (p, v) =>
      `${budgets(v.count!)} ficaram de fora: seus valores não são dinheiro (folios ${p.folios}).`,
    month_basis: (_p, v) =>
      `Os meses são os ${v.month_of === "approval" ? "da decisão do orçamento" : v.month_of === "task_end" ? "do fim da tarefa" : "da criação do orçamento"}.`,
    dates_unreadable: (_p, v) => `${budgets(v.count!)} ficaram de fora: a data de criação não é uma data.`,
    review_partial_deadline: (p, v) =>
      `A revisão parou no tempo limite da chamada, depois de ${of(p, v, "read")}.`,
    review_partial_rate_limited: (p, v) =>
      `A revisão parou no limite de chamadas da plataforma (renova às ${p.reset_at}), depois de ${of(p, v, "read")}.`,
    review_partial_failed: (p, v) =>
      `A revisão parou por uma falha da plataforma (${p.error}), depois de ${of(p, v, "read")}.`,
    review_capped: (p, v) =>
      `A revisão parou no seu limite de ${p.max_records} orçamentos, depois de ${of(p, v, "scanned")}.`,
    groups_cut: (p) =>
      `${p.shown} de ${p.groups} grupos aparecem (os maiores de cada moeda) para caber em um resultado.`,
    notes_left_out: (_p, v) =>
      say.count(v.count as number, {
        one: "(mais # observação ficou de fora.)",
        other: "(mais # observações ficaram de fora.)",
      }),
    history_none: () =>
      "Não há revisão anterior destes filtros guardada; esta fica guardada para a próxima vez.",
    history_unreadable: () => "Não foi possível ler o histórico guardado: não foi comparado.",
    changes_within_partial: () =>
      "Uma das duas revisões é parcial: as mudanças são dentro do que ambas leram.",
    history_first_review: () =>
      "Nada lido antes está guardado para comparar; esta revisão fica guardada para a próxima vez.",
    history_off: (p) => `Não comparado: o histórico de revisões está desativado (${p.reason}).`,
    history_unavailable: (p) => `O histórico de revisões não pôde ser usado desta vez (${p.reason}).`,
    history_partial: (_p, v) =>
      `${v.partial === "this" ? "Esta revisão" : "A revisão anterior"} é parcial: não se sabe quais orçamentos saíram dela.`,
    history_not_stored: () => "Esta revisão não pôde ser guardada no histórico desta vez.",
  };
};
