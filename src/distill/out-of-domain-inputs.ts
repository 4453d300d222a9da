import type { TrainingExample } from "./training-examples.js";

/** @internal Requests from other domains: what a node for alerts must never be sure about. */
export const OTHER_DOMAIN = [
  "What is the area of a triangle with a base of 10 units and a height of 5 units?",
  "Book a table for two at an Italian restaurant downtown tonight at 8pm",
  "Translate 'good morning' into French and Spanish",
  "Find the cheapest flight from Boston to Denver next Friday",
  "How many calories are in a medium banana?",
  "Convert 150 US dollars to euros at today's rate",
  "Write a haiku about autumn leaves",
  "Calculate the compound interest on $5000 at 4% for 3 years",
  "What's the weather forecast for Tokyo this weekend?",
  "Recommend three science fiction novels similar to Dune",
  "Sort the list [5, 3, 9, 1] in ascending order",
  "Who won the football world cup in 2010?",
  "Set a reminder to call mom tomorrow at noon",
  "Play some relaxing jazz music in the living room",
  "Summarise the plot of Hamlet in two sentences",
  "Order a large pepperoni pizza for delivery",
  "Please review my pull request, it renames the config loader",
  "Can you send me the slides from yesterday's all-hands?",
];

/** @internal The same kind of requests, and alert-like text, in other languages. */
export const OTHER_LANGUAGES = [
  "Der Server antwortet nicht mehr, bitte sofort prüfen",
  "La base de datos de pagos está caída desde las 10:40",
  "Le service de paiement ne répond plus depuis dix minutes",
  "Il sito è lento da stamattina, i clienti si lamentano",
  "Wie spät ist es in New York?",
  "¿Dónde está la estación de tren más cercana?",
  "Quelle est la capitale du Canada ?",
  "支付服务从十点开始无法访问",
  "サーバーのディスク使用率が95%を超えました",
  "Сервер оплаты недоступен уже полчаса",
  "결제 서비스가 다운되었습니다",
  "O servidor de login está fora do ar",
];

/** @internal Seeded gibberish, a few empty or punctuation-only texts. */
export function gibberishInputs(count = 40, seed = 42): string[] {
  let s = seed;
  const random = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(random() * 8) }, () =>
      Array.from(
        { length: 2 + Math.floor(random() * 8) },
        () => "abcdefghijklmnopqrstuvwxyz0123456789"[Math.floor(random() * 36)],
      ).join(""),
    ).join(" "),
  );
  return [...words, "", " ", "   ", "\n", "-", "..."];
}

/**
 * Out-of-domain inputs for a node, labelled as declines (no call is right for them): every text above
 * rendered into the example's instruction (its text up to the first `: `) and bare, with every severity.
 */
export function outOfDomainExamples(template: TrainingExample): TrainingExample[] {
  const colon = template.instruction.indexOf(": ");
  const prefix = colon >= 0 ? template.instruction.slice(0, colon + 2) : "";
  const out: TrainingExample[] = [];
  for (const text of [...OTHER_DOMAIN, ...OTHER_LANGUAGES, ...gibberishInputs()])
    for (const severity of ["critical", "high", "medium", "low", "info"])
      for (const instruction of [prefix + text, text])
        out.push({
          instruction,
          facts: { ...template.facts, severity },
          call: { name: null, arguments: {} },
          tools: template.tools,
          source: "person",
        });
  return out;
}
