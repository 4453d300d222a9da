import type pg from "pg";
import { withTransaction } from "./postgres-transaction.js";
import type { RepairRecord } from "./run-state.js";
import { withRepair, type RunMutation } from "./run-store.js";

/** A write of a group commit: a run's batch of mutations. */
export interface RunWrite {
  runId: string;
  batch: RunMutation[];
}

/**
 * Writes a group of batches in one transaction of the PostgreSQL store. Artifacts, nodes and items (nearly
 * every write of a run) become one statement — one round trip, atomic on its own, no BEGIN/COMMIT; a group with
 * a status change or a resolution, which reads rows the upserts write, runs as a transaction in order.
 */
export async function applyWrites(connect: () => Promise<pg.PoolClient>, writes: RunWrite[]): Promise<void> {
  const client = await connect();
  try {
    if (writes.every((w) => w.batch.every((m) => !isInPlace(m)))) {
      const upserts = new Upserts();
      for (const w of writes) for (const m of w.batch) upserts.add(w.runId, m as UpsertMutation);
      const statement = upserts.take();
      if (statement) await client.query(statement);
      return;
    }
    await withTransaction(client, (tx) => applyInOrder(tx, writes));
  } finally {
    client.release();
  }
}

/** Applies writes in order on a client inside a transaction (a group commit's, or a run's creation). */
export async function applyInOrder(client: pg.ClientBase, writes: RunWrite[]): Promise<void> {
  const upserts = new Upserts();
  for (const w of writes) {
    for (const m of w.batch) {
      if (isInPlace(m)) {
        // These read rows the upserts write: apply what came before them first.
        await upserts.flush(client);
        await applyInPlace(client, w.runId, m);
      } else upserts.add(w.runId, m);
    }
  }
  await upserts.flush(client);
}

type InPlaceMutation = Extract<RunMutation, { kind: "status" | "resolution" | "repair" }>;
type UpsertMutation = Exclude<RunMutation, InPlaceMutation>;

function isInPlace(m: RunMutation): m is InPlaceMutation {
  return m.kind === "status" || m.kind === "resolution" || m.kind === "repair";
}

/** Rows to upsert, last write per key winning (a statement may not touch one row twice). */
class Upserts {
  readonly #artifacts = new Map<string, [string, string, string]>();
  readonly #nodes = new Map<string, [string, string, string]>();
  readonly #items = new Map<string, [string, string, number, string, string | null, string | null]>();

  add(runId: string, m: UpsertMutation): void {
    switch (m.kind) {
      case "artifact":
        this.#artifacts.set(`${runId}\0${m.key}`, [runId, m.key, JSON.stringify(m.value ?? null)]);
        break;
      case "node":
        this.#nodes.set(`${runId}\0${m.nodeId}`, [runId, m.nodeId, JSON.stringify(m.record)]);
        break;
      case "item": {
        const hasValue = "value" in m && m.item.key !== undefined;
        this.#items.set(`${runId}\0${m.nodeId}\0${m.item.index}`, [
          runId,
          m.nodeId,
          m.item.index,
          JSON.stringify(m.item),
          hasValue ? m.item.key! : null,
          hasValue ? JSON.stringify(m.value ?? null) : null,
        ]);
        break;
      }
    }
  }

  /** Everything added so far as one statement (data-modifying CTEs), or undefined when nothing was; then empty. */
  take(): pg.QueryConfig | undefined {
    const parts: string[] = [];
    // Named by which tables it writes: a prepared statement per shape, planned once per connection.
    const name = `deputy_upsert_${+!!this.#artifacts.size}${+!!this.#nodes.size}${+!!this.#items.size}`;
    const values: unknown[] = [];
    const param = (list: unknown[], type: string) => `$${values.push(list)}::${type}[]`;
    if (this.#artifacts.size) {
      const [r, k, v] = columns([...this.#artifacts.values()], 3);
      parts.push(
        `INSERT INTO deputy.artifacts (run_id, key, value)
         SELECT r, k, v::json FROM unnest(${param(r!, "text")}, ${param(k!, "text")}, ${param(v!, "text")}) AS t(r, k, v)
         ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value`,
      );
    }
    if (this.#nodes.size) {
      const [r, n, v] = columns([...this.#nodes.values()], 3);
      parts.push(
        `INSERT INTO deputy.nodes (run_id, node_id, record)
         SELECT r, n, v::jsonb FROM unnest(${param(r!, "text")}, ${param(n!, "text")}, ${param(v!, "text")}) AS t(r, n, v)
         ON CONFLICT (run_id, node_id) DO UPDATE SET record = excluded.record`,
      );
    }
    if (this.#items.size) {
      const [r, n, i, rec, k, v] = columns([...this.#items.values()], 6);
      parts.push(
        `INSERT INTO deputy.items (run_id, node_id, idx, record, key, value)
         SELECT r, n, i, rec::jsonb, k, v::json
         FROM unnest(${param(r!, "text")}, ${param(n!, "text")}, ${param(i!, "int")}, ${param(rec!, "text")},
                     ${param(k!, "text")}, ${param(v!, "text")}) AS t(r, n, i, rec, k, v)
         ON CONFLICT (run_id, node_id, idx) DO UPDATE
           SET record = excluded.record, key = excluded.key, value = excluded.value`,
      );
    }
    this.#artifacts.clear();
    this.#nodes.clear();
    this.#items.clear();
    if (parts.length === 0) return undefined;
    const last = parts.pop()!;
    const text = parts.length ? `WITH ${parts.map((p, i) => `w${i} AS (${p})`).join(",\n")}\n${last}` : last;
    return { name, text, values };
  }

  async flush(client: pg.ClientBase): Promise<void> {
    const statement = this.take();
    if (statement) await client.query(statement);
  }
}

function columns(rows: unknown[][], width: number): unknown[][] {
  return Array.from({ length: width }, (_, c) => rows.map((r) => r[c]));
}

async function applyInPlace(client: pg.ClientBase, runId: string, m: InPlaceMutation): Promise<void> {
  if (m.kind === "repair") {
    // Read and written under the row's lock, so two repairs of one run (each under the run's lease) never lose one.
    const { rows } = await client.query<{ repairs: RepairRecord[] | null }>(
      `SELECT repairs FROM deputy.runs WHERE run_id = $1 FOR UPDATE`,
      [runId],
    );
    await client.query(`UPDATE deputy.runs SET repairs = $2::jsonb WHERE run_id = $1`, [
      runId,
      JSON.stringify(withRepair(rows[0]?.repairs ?? [], m.repair)),
    ]);
  } else if (m.kind === "status") {
    await client.query(
      `UPDATE deputy.runs SET status = $1, updated_at = $2, error = $3, event_seq = coalesce($5, event_seq)
       WHERE run_id = $4`,
      [m.status, m.updatedAt, m.error ? JSON.stringify(m.error) : null, runId, m.eventSeq ?? null],
    );
  } else if (m.item === undefined) {
    await client.query(
      `UPDATE deputy.nodes SET record = jsonb_set(record, '{escalation,resolution}', $3::jsonb)
       WHERE run_id = $1 AND node_id = $2 AND record ? 'escalation'`,
      [runId, m.nodeId, JSON.stringify(m.resolution)],
    );
  } else {
    await client.query(
      `UPDATE deputy.items SET record = jsonb_set(record, '{escalation,resolution}', $4::jsonb)
       WHERE run_id = $1 AND node_id = $2 AND idx = $3 AND record ? 'escalation'`,
      [runId, m.nodeId, m.item, JSON.stringify(m.resolution)],
    );
  }
}
