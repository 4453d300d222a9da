import type { BudgetViolation } from "../errors/budget-exceeded-error.js";
import { checkBudget, type Budget, type OnExceeded, type Spent } from "./budget.js";
import { Ledger } from "./ledger.js";
import type { Rates } from "./pricing.js";
import { addUsage, emptyUsage, type Usage } from "./usage.js";

/** What a frame needs to know about the delegation that created it. */
export interface FrameBinding {
  tool: string;
  /** The effective per-delegation budget (contract defaults overridden by the call site). */
  budget: Budget;
}

/** How a frame hangs under its parent: through which delegated call. */
export interface ParentLink {
  frame: Frame;
  binding: FrameBinding;
  callId: string;
  /** Everything spent inside this call so far (nested calls included). */
  usage: Usage;
  cost: number;
}

/**
 * The state of one agent run inside a generation: its agent-wide ledger, its per-delegation ledgers, and the
 * link to the delegated call it runs inside (if any). A frame lives for one run, so budgets never bleed
 * across requests.
 *
 * @internal
 */
export class Frame {
  readonly ledger = new Ledger();
  readonly ledgers = new Map<string, Ledger>();
  /** Start time (ms) of the delegated call in flight; calls of one frame run one at a time. */
  inflightSince: number | undefined;
  /** Tokens and USD of this frame's own model requests (its delegations' are in `ledger`). */
  ownUsage: Usage = emptyUsage();
  ownCost = 0;

  constructor(
    readonly agent: string,
    readonly budget: Budget,
    readonly maxDepth: number,
    readonly traceId: string,
    readonly depth: number,
    readonly parent: ParentLink | undefined,
    readonly now: () => number,
    /** Inline rates that price this frame's own model steps (the delegation's, else the caller's). */
    readonly rates: Rates | undefined,
  ) {}

  ledgerFor(tool: string): Ledger {
    let ledger = this.ledgers.get(tool);
    if (!ledger) this.ledgers.set(tool, (ledger = new Ledger()));
    return ledger;
  }

  /** Links from the nearest ancestor to the root. */
  ancestors(): ParentLink[] {
    const out: ParentLink[] = [];
    for (let link = this.parent; link; link = link.frame.parent) out.push(link);
    return out;
  }

  /**
   * A model step of this frame spent tokens: kept as the frame's own, and rolled up into every ancestor's
   * agent-wide and delegation ledger.
   */
  recordUsage(usage: Usage, cost: number): void {
    this.ownUsage = addUsage(this.ownUsage, usage);
    this.ownCost += cost;
    const tokens = usage.totalTokens;
    for (const link of this.ancestors()) {
      link.usage = addUsage(link.usage, usage);
      link.cost += cost;
      link.frame.ledger.add({ tokens, cost });
      link.frame.ledgerFor(link.binding.tool).add({ tokens, cost });
    }
  }

  /** A delegated call was accepted: it counts against this frame and every ancestor's agent-wide ceiling. */
  recordCallStart(tool: string, at: number): void {
    this.ledger.add({ calls: 1 });
    this.ledgerFor(tool).add({ calls: 1 });
    for (const link of this.ancestors()) link.frame.ledger.add({ calls: 1 });
    this.inflightSince = at;
  }

  /** A delegated call finished after `seconds`. (Ancestors count it inside their own call's duration.) */
  recordCallEnd(tool: string, seconds: number): void {
    this.ledger.add({ duration: seconds });
    this.ledgerFor(tool).add({ duration: seconds });
    this.inflightSince = undefined;
  }

  /** What `ledger` has spent, counting the time of this frame's call in flight. */
  spent(ledger: Ledger): Spent {
    const inflight = this.inflightSince === undefined ? 0 : (this.now() - this.inflightSince) / 1000;
    return {
      calls: ledger.calls,
      tokens: ledger.tokens,
      cost: ledger.cost,
      duration: ledger.duration + inflight,
    };
  }
}

/** A refusal: the violated limit, whose budget it was, and its policy. */
export interface Refusal {
  violation: BudgetViolation;
  budgetOwner: string;
  policy: OnExceeded;
}

/**
 * Checks, before a call from `frame` through `binding`, every limit that applies: `maxDepth` of the frame and
 * of every ancestor; the delegation's own limit; the agent-wide ceiling; then, for each ancestor, the
 * delegation it is running inside (its call count aside: that call is the one in flight) and its ceiling.
 */
export function findRefusal(frame: Frame, binding: FrameBinding): Refusal | undefined {
  const tool = binding.tool;
  const frames = [frame, ...frame.ancestors().map((l) => l.frame)];
  for (const owner of frames) {
    const below = frame.depth - owner.depth;
    if (below + 1 > owner.maxDepth) {
      return {
        violation: {
          limit: "max_depth",
          allowed: owner.maxDepth,
          used: below,
          scope: "agent",
          agent: owner.agent,
          tool,
        },
        budgetOwner: owner.agent,
        policy: policyOf({}, owner),
      };
    }
  }
  const own = checkBudget(binding.budget, frame.spent(frame.ledgerFor(tool)), {
    scope: "delegation",
    agent: frame.agent,
    tool,
  });
  if (own) return { violation: own, budgetOwner: frame.agent, policy: policyOf(binding.budget, frame) };
  const ceiling = checkBudget(frame.budget, frame.spent(frame.ledger), {
    scope: "agent",
    agent: frame.agent,
    tool,
  });
  if (ceiling) return { violation: ceiling, budgetOwner: frame.agent, policy: policyOf(frame.budget, frame) };
  return findAncestorRefusal(frame.ancestors(), tool);
}

/**
 * Checks the limits of the delegated calls `links` run inside and of their callers' ceilings, nearest first: each
 * call's delegation limit (its call count aside: that call is the one in flight), then the caller's ceiling.
 */
export function findAncestorRefusal(links: readonly ParentLink[], tool: string): Refusal | undefined {
  for (const link of links) {
    const a = link.frame;
    const { maxCalls: _inflight, ...rest } = link.binding.budget;
    const viaDelegation = checkBudget(rest, a.spent(a.ledgerFor(link.binding.tool)), {
      scope: "delegation",
      agent: a.agent,
      tool,
    });
    if (viaDelegation)
      return { violation: viaDelegation, budgetOwner: a.agent, policy: policyOf(link.binding.budget, a) };
    const viaCeiling = checkBudget(a.budget, a.spent(a.ledger), { scope: "agent", agent: a.agent, tool });
    if (viaCeiling) return { violation: viaCeiling, budgetOwner: a.agent, policy: policyOf(a.budget, a) };
  }
  return undefined;
}

function policyOf(budget: Budget, owner: Frame): OnExceeded {
  return budget.onExceeded ?? owner.budget.onExceeded ?? "stop";
}

/** The answer a calling model gets for a refused call (`onExceeded: "stop"`). */
export function refusalAnswer(refusal: Refusal): {
  error: "budget_exceeded";
  limit: string;
  allowed: number;
  used: number;
  message: string;
} {
  const { limit, allowed, used, scope, agent } = refusal.violation;
  const what =
    limit === "max_depth"
      ? "Delegation depth limit reached"
      : scope === "agent"
        ? `Agent-wide delegation budget of ${agent} exhausted`
        : "Delegation budget exhausted";
  return {
    error: "budget_exceeded",
    limit,
    allowed,
    used,
    message: `${what} (${limit}: ${used} of ${allowed} used). Do not retry this tool; answer with the information you already have.`,
  };
}
