import { serializeError, type SerializedError } from "../errors/deputy-error.js";
import { NodeError } from "../errors/node-error.js";
import {
  checkedOutcome,
  commit,
  commitItem,
  executeUnit,
  makeUnit,
  openEscalation,
  storeKey,
  type EngineContext,
} from "./engine-context.js";
import type { NodeExecutor, UnitOutcome, PreparedNode, WorkUnit } from "./node-executor.js";
import type { BaseNode, ForEach } from "./plan-schema.js";
import { addSpend } from "./run-manifest.js";
import type { ItemCounts, ItemRecord } from "../store/run-state.js";
import { indexMap } from "../runtime/own.js";
import { compileValue, type TemplateScope, type ValueRenderer } from "../runtime/template.js";

/** An item whose prepared node answers later (see {@link PreparedNode}). */
const LATER = Symbol("later");

/**
 * The items of one for_each node run: at most `max_concurrency` in flight, each committed (its record and its
 * artifact) before its slot takes the next. A class, not closures made per run: the methods are the same
 * functions in every run, so code optimised during one run stays valid for the next. Everything that does not
 * depend on the item is done once here (the store key compiled, the executor prepared); an item whose work
 * answers synchronously costs no promise, and one that answers with a promise costs one turn.
 */
export class ItemLoop {
  readonly counts: ItemCounts;
  readonly keys: (string | undefined)[];
  firstFailure: { index: number; error: SerializedError } | undefined;
  done = 0;
  private next = 0;
  private active = 0;
  private readonly fe: ForEach;
  private readonly previous: Record<number, ItemRecord>;
  private readonly keyOf: ValueRenderer;
  private readonly stop = new AbortController();
  /** The node type's executor, looked up once for all items. */
  private readonly executor: NodeExecutor<any> | undefined;
  private readonly prepared: PreparedNode | undefined;
  private readonly forward: () => void;
  private settle: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  private failed = false;
  /** Continues a slot after an asynchronous item (made once per loop, handed to `then`). */
  private readonly resume: () => void;
  private readonly abandon: (error: unknown) => void;
  /** Where a prepared node hands an outcome it did not have at once (made once per loop). */
  private readonly later: (outcome: UnitOutcome, unit: WorkUnit) => void;

  constructor(
    private readonly ctx: EngineContext,
    private readonly node: BaseNode,
    private readonly base: TemplateScope,
    private readonly list: unknown[],
  ) {
    this.fe = node.for_each!;
    this.previous = ctx.state.items[node.id] ?? indexMap(); // no prototype: an index never finds a record there
    this.counts = { total: list.length, ok: 0, error: 0, skipped: 0, escalated: 0, reused: 0 };
    this.keys = new Array<string | undefined>(list.length);
    this.keyOf = compileValue(node.store_as);
    this.executor = ctx.nodeTypes.executorOf(node.type);
    this.prepared = ctx.dispatcher ? undefined : this.executor?.prepare?.(node, ctx.host);
    // `on_item_error: "fail"` stops the node at the first failure and aborts the items in flight; so does the
    // run's abort, forwarded once. One plain signal, not AbortSignal.any: every item reads `aborted` several
    // times, and a composite signal recomputes it from its sources on each read.
    this.forward = () => this.stop.abort(ctx.signal.reason);
    this.resume = () => this.pump();
    this.abandon = (error) => this.fail(error);
    this.later = (outcome, unit) => this.endedLater(unit, outcome);
  }

  /** Runs every item (or until stopped); rejects only when a commit fails. */
  run(): Promise<void> {
    const { ctx } = this;
    if (ctx.signal.aborted) this.forward();
    else ctx.signal.addEventListener("abort", this.forward, { once: true });
    return new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
      const slots = Math.min(this.fe.max_concurrency, this.list.length);
      this.active = slots;
      if (slots === 0) this.end();
      for (let i = 0; i < slots && !this.failed; i++) this.pump();
    });
  }

  /** One slot: takes items until none is left, returning as soon as one waits (it resumes the slot). */
  private pump(): void {
    try {
      const { list } = this;
      const signal = this.stop.signal;
      while (this.next < list.length && !signal.aborted && !this.ctx.stop.aborted && !this.failed) {
        const pending = this.item(this.next++);
        if (pending === LATER) return;
        if (pending) {
          pending.then(this.resume, this.abandon);
          return;
        }
      }
    } catch (error) {
      return this.fail(error);
    }
    if (--this.active === 0) this.end();
  }

  /** A prepared node's outcome that came later: record it, then go on with the slot. */
  private endedLater(unit: WorkUnit, outcome: UnitOutcome): void {
    try {
      const index = unit.itemIndex!;
      const key = this.keys[index]!;
      const written = this.ended(unit, key, this.previous[index], checkedOutcome(this.node, unit, outcome));
      if (written) {
        written.then(this.resume, this.abandon);
        return;
      }
    } catch (error) {
      return this.fail(error);
    }
    this.pump();
  }

  private end(): void {
    this.ctx.signal.removeEventListener("abort", this.forward);
    if (!this.failed) this.settle!.resolve();
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.ctx.signal.removeEventListener("abort", this.forward);
    this.settle!.reject(error);
  }

  /**
   * Starts one item: `undefined` when it is done, a promise when its commit (or an executor's `execute`) is
   * under way, `LATER` when a prepared node will hand its outcome to `later`.
   */
  private item(index: number): PromiseLike<void> | typeof LATER | undefined {
    const { ctx, node, fe, base } = this;
    const scope: TemplateScope = { artifacts: base.artifacts, alias: fe.as, item: this.list[index], index };
    if (base.inputs) scope.inputs = base.inputs;
    const prev = this.previous[index];
    let key: string;
    try {
      key = storeKey(node, scope, this.keyOf);
    } catch (error) {
      return this.finish({ index, status: "error", error: serializeError(error) }, false, undefined);
    }
    if (prev?.status === "ok" || (fe.skip_existing && Object.hasOwn(ctx.state.artifacts, key))) {
      this.counts.reused++;
      this.counts.ok++;
      this.keys[index] = key;
      if (prev) return this.settled();
      const item: ItemRecord = { index, status: "ok", key, details: { reused: true } };
      const written = commit(ctx, [{ kind: "item", nodeId: node.id, item }]);
      return written ? written.then(() => this.report(index, "ok")) : this.report(index, "ok");
    }
    if (prev?.status === "escalated" && prev.escalation && !prev.escalation.resolution) {
      this.counts.escalated++;
      return this.settled();
    }
    const unit = makeUnit(ctx, node, scope, this.stop.signal, index);
    if (ctx.emit.active())
      ctx.emit({ type: "item-start", runId: ctx.state.run.runId, nodeId: node.id, index });
    if (prev?.escalation) {
      unit.escalation = prev.escalation;
      if (prev.escalation.resolution) unit.resolution = prev.escalation.resolution;
    }
    const { prepared } = this;
    if (!prepared) {
      return executeUnit(ctx, node, unit, this.executor).then(
        (o) => this.ended(unit, key, prev, o),
        (error: unknown) => this.ended(unit, key, prev, { status: "error", error: serializeError(error) }),
      );
    }
    let outcome: UnitOutcome | undefined;
    try {
      this.keys[index] = key; // read back by endedLater; kept only if the item ends ok
      outcome = prepared.run(unit, this.later);
    } catch (error) {
      outcome = { status: "error", error: serializeError(error) };
    }
    return outcome ? this.ended(unit, key, prev, checkedOutcome(node, unit, outcome)) : LATER;
  }

  /** Records an item's outcome (`prev`: its record from an earlier attempt). */
  private ended(
    unit: WorkUnit,
    key: string,
    prev: ItemRecord | undefined,
    outcome: UnitOutcome,
  ): PromiseLike<void> | undefined {
    const index = unit.itemIndex!;
    let item: ItemRecord;
    switch (outcome.status) {
      case "ok":
        item = { index, status: "ok", key };
        break;
      case "skipped":
        item = { index, status: "skipped" };
        break;
      case "escalated":
        openEscalation(this.ctx, this.node.id, index, outcome.escalation);
        item = {
          index,
          status: "escalated",
          escalation: {
            ...outcome.escalation,
            nodeId: this.node.id,
            item: index,
            createdAt: this.ctx.now().toISOString(),
          },
        };
        break;
      case "error":
        item = {
          index,
          status: this.fe.on_item_error === "skip" ? "skipped" : "error",
          error: outcome.error,
        };
        break;
    }
    // A person's decision stays on the item once applied: `deputy distill --store` learns from it.
    if (prev?.escalation?.resolution && outcome.status !== "escalated") item.escalation = prev.escalation;
    if (outcome.details) item.details = outcome.details;
    return outcome.status === "ok"
      ? this.finish(item, true, outcome.value)
      : this.finish(item, false, undefined);
  }

  /** Counts and commits an item; a promise (only when the run persists) that settles once it is written. */
  private finish(item: ItemRecord, hasValue: boolean, value: unknown): PromiseLike<void> | undefined {
    const { index } = item;
    this.keys[index] = item.status === "ok" ? item.key : undefined;
    this.counts[item.status]++;
    if (item.status === "error" && this.fe.on_item_error === "fail" && !this.firstFailure) {
      this.firstFailure = { index, error: item.error! };
      this.stop.abort(new NodeError("ITEM_FAILED", `Item ${index} failed; on_item_error is "fail".`));
    }
    const written = commitItem(this.ctx, this.node.id, item, hasValue, value);
    if (!written) return this.report(index, item.status, item.details);
    return written.then(() => this.report(index, item.status, item.details));
  }

  /**
   * An item that ended in an earlier attempt and stays as it was (done, or still awaiting a decision): counted, not
   * reported again — its `item-end` is already in the run's stream.
   */
  private settled(): undefined {
    this.done++;
    return undefined;
  }

  private report(index: number, status: string, details?: Record<string, unknown>): undefined {
    this.done++;
    const { ctx } = this;
    if (ctx.emit.active()) {
      const spend = details && addSpend(undefined, details, ctx.nodeTypes.get(this.node.type));
      ctx.emit({
        type: "item-end",
        runId: ctx.state.run.runId,
        nodeId: this.node.id,
        index,
        status,
        done: this.done,
        total: this.list.length,
        ...(spend ? { spend } : {}),
        ...(details?.cached === true ? { cached: true } : {}),
      });
    }
    return undefined;
  }
}
