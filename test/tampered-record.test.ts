import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "vitest";
import { tamperedRecordScenario } from "./tampered-record.js";

describe("a tampered SQLite run record (issue 38 item 4)", () => {
  it("is refused with one line and exit 2, and starts no command and imports no module", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "deputy-tampered-sqlite-")), "runs.db");
    const sql = () => new DatabaseSync(db);
    await tamperedRecordScenario(
      db,
      async (runId) => {
        const conn = sql();
        try {
          const row = conn.prepare("SELECT options FROM runs WHERE run_id = ?").get(runId) as {
            options: string;
          };
          return JSON.parse(row.options) as Record<string, unknown>;
        } finally {
          conn.close();
        }
      },
      async (runId, options) => {
        const conn = sql();
        try {
          conn.prepare("UPDATE runs SET options = ? WHERE run_id = ?").run(JSON.stringify(options), runId);
        } finally {
          conn.close();
        }
      },
    );
  });
});
