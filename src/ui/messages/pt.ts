/** The view's words in Brazilian Portuguese (pt, pt-BR, and pt-PT until it has a module of its own). */
import { ageUnits, type Catalogue, isYesterday } from "./catalogue.js";
import { notesPt } from "./notes-pt.js";

export const pt: Catalogue = (say) => {
  // CLDR puts 0 with 1 in Portuguese; "0 orçamentos" is what people write.
  const budgets = (n: number) =>
    say.count(n, {
      "=0": "# orçamentos",
      one: "# orçamento",
      many: "# de orçamentos",
      other: "# orçamentos",
    });
  return {
    title: "Revisão de orçamentos",
    waiting: "Aguardando os dados da revisão…",
    controls: {
      legend: "Executar a revisão novamente",
      status: "Situação",
      period: "Período",
      group: "Agrupar por",
      update: "Atualizar",
    },
    statusChoices: {
      "": "Qualquer situação",
      pending: "Pendente",
      approved: "Aprovado",
      rejected: "Rejeitado ou cancelado",
    },
    periodChoices: {
      "7": "Últimos 7 dias",
      "30": "Últimos 30 dias",
      "90": "Últimos 90 dias",
      "365": "Últimos 365 dias",
      all: "Todas as datas",
      current: "Período atual",
    },
    groupChoices: {
      currency: "Moeda",
      status: "Situação",
      cost_center: "Centro de custo",
      third_party: "Terceiro",
      month: "Mês",
      work_order_status: "Situação da OS",
      age: "Dias em aberto",
      "": "Maiores orçamentos",
    },
    keyHead: {
      currency: "Moeda",
      status: "Situação",
      cost_center: "Centro de custo",
      third_party: "Terceiro",
      month: "Mês",
      work_order_status: "Situação da OS",
      age: "Dias em aberto",
    },
    keyPhrase: {
      currency: "moeda",
      status: "situação",
      cost_center: "centro de custo",
      third_party: "terceiro",
      month: "mês",
      work_order_status: "situação da ordem de serviço",
      age: "dias em aberto",
    },
    values: {
      status: { pending: "pendente", approved: "aprovado", rejected: "rejeitado" },
      statusLabel: {
        "pending approval": "pendente de aprovação",
        approved: "aprovado",
        rejected: "rejeitado",
        "rejected/cancelled": "rejeitado",
      },
      workOrderStatus: {
        "in process": "em andamento",
        "in review": "em revisão",
        finished: "concluída",
        cancelled: "cancelada",
      },
      age: { "0-7": "0-7", "8-30": "8-30", "31-60": "31-60", "61-90": "61-90", "over 90": "mais de 90" },
    },
    dateBasis: {
      creation_date: "data de abertura da OS",
      budget_created: "data de criação do orçamento",
      initial_date: "data de início",
      final_date: "data de término",
      approval_date: "data de aprovação",
    },
    window: {
      line: (span) => `Período: ${span}`,
      span: (since, until) => `${since} – ${until}`,
      openStart: "o primeiro orçamento",
      openEnd: "agora",
      everyDate: "todas as datas",
      notStated: "não informado",
      basis: (basis) => `por ${basis}`,
      defaultPeriod: "período padrão",
      today: (date) => `hoje ${date}`,
    },
    filters: "Filtros:",
    filter: {
      currency: "moeda",
      cost_center: "centro de custo",
      third_party: "terceiro",
      id: "folio",
      wo_folio: "ordem de serviço",
    },
    reviewCounts: (scanned, matched) =>
      `Lidos ${say.num(scanned)} · ${say.count(matched, {
        "=0": "nenhum orçamento corresponde",
        one: "# orçamento corresponde",
        many: "# de orçamentos correspondem",
        other: "# orçamentos correspondem",
      })}`,
    listCounts: (returned, total) => `${say.num(returned)} de ${budgets(total)} neste resultado`,
    scanned: (n) => `lidos ${say.num(n)}`,
    complete: "Completo",
    partial: "Parcial",
    sandbox: "Dados de teste (sandbox)",
    partialCapped:
      "Parcial: a revisão parou no máximo de orçamentos que lê em uma chamada; os valores cobrem apenas os orçamentos lidos.",
    partialList: (returned, total, more) =>
      `Parcial: ${say.num(returned)} de ${budgets(total)} estão neste resultado${
        more ? "; a próxima chamada continua daí" : ""
      }.`,
    partialResumable:
      "Parcial: o servidor parou antes do fim do período. “Continuar a revisão” lê o restante sem ler de novo o que já foi lido.",
    partialNotes:
      "Parcial: estes valores não cobrem todos os orçamentos do período; as observações abaixo dizem por quê e como restringir a revisão.",
    asOf: (time, seconds, sameDay) => {
      const { n, unit } = ageUnits(seconds);
      return `Dados ${sameDay ? "das" : "de"} ${time}, há ${say.num(n)} ${unit}`;
    },
    readAgain: "Ler novamente",
    continueReview: "Continuar a revisão",
    noMatch: "Nenhum orçamento corresponde a esta revisão.",
    noBudget: "Nenhum orçamento neste resultado.",
    footnote:
      "Valor: a soma dos totais das linhas do orçamento, antes do desconto e dos impostos. Moedas diferentes nunca são somadas.",
    amountHead: "Valor",
    amountDetail: "(linhas, antes de desconto e impostos)",
    bound: { items_total: "valor", net_total: "valor líquido" },
    notes: "Observações",
    note: notesPt(say),
    totalsTitle: "Totais por moeda",
    noIsoCode: "sem código ISO 4217: nunca somada a outra moeda",
    budgets,
    oldestPending: (days) =>
      `pendente mais antigo: ${say.count(days, { "=0": "# dias", one: "# dia", many: "# de dias", other: "# dias" })}`,
    none: "(sem valor)",
    chartsTitle: (key) => `Por ${key}`,
    chartCaption: (key) => `valor por ${key}`,
    ageTitle: "Pendentes por dias em aberto",
    ageCaption: "orçamentos pendentes por dias de espera",
    budgetsHead: "Orçamentos",
    bar: "Barra",
    showAll: (rows) => `Mostrar todas as ${say.num(rows)} linhas`,
    showFirst: (rows) => `Mostrar só as primeiras ${say.num(rows)} linhas`,
    largestTitle: "Maiores orçamentos",
    largestCaption: (shown, matched, total) =>
      matched !== undefined && matched > shown
        ? `${say.count(shown, { one: "o maior", other: "os # maiores" })} de ${budgets(matched)} (${total} juntos)`
        : `${budgets(shown)}, ${total} no total`,
    recordHeads: {
      folio: "Folio",
      workOrder: "Ordem de serviço",
      thirdParty: "Terceiro",
      status: "Situação",
    },
    quotes: ["“", "”"],
    notABudgetResult:
      "Este resultado não contém dados de orçamentos: a visualização mostra resultados de query_budgets.",
    failed: "Não foi possível atualizar a revisão.",
    noExplanation: "A chamada falhou sem explicação.",
    updating: "Atualizando a revisão…",
    updated: "Revisão atualizada.",
    updateFailed: "A atualização falhou.",
    cancelled: (reason) => (reason ? `A chamada foi cancelada: ${reason}` : "A chamada foi cancelada."),
    cannotRerun: "Este aplicativo não permite que a visualização execute a revisão novamente.",
    cannotConnect: (reason) => `A visualização não conseguiu se conectar ao aplicativo: ${reason}`,
    since: {
      title: (when) => `Desde a revisão de ${when}`,
      added: (n, days) =>
        `${say.count(n, { one: "+# novo", other: "+# novos" })} ${isYesterday(days) ? "desde ontem" : "desde então"}`,
      approved: (n) => say.count(n, { one: "# aprovado", other: "# aprovados" }),
      rejected: (n) => say.count(n, { one: "# rejeitado", other: "# rejeitados" }),
      gone: (n) => say.count(n, { one: "# não corresponde mais", other: "# não correspondem mais" }),
      changed: (n) => say.count(n, { one: "# alterado", other: "# alterados" }),
      removed: (n) => say.count(n, { one: "# removido", other: "# removidos" }),
      unchanged: (n) => say.count(n, { one: "# sem alteração", other: "# sem alteração" }),
      notCompared: (n) =>
        `${say.count(n, { one: "# não comparado", other: "# não comparados" })} (nenhuma leitura anterior os cobriu)`,
      partial: "Uma das duas revisões é parcial: estes números cobrem o que ambas leram.",
    },
  };
};
