import pg from "pg";
import { describe, inject, it } from "vitest";
import { freshDatabase } from "./postgres-database.js";
import { tamperedRecordScenario } from "./tampered-record.js";

describe("a tampered PostgreSQL run record (issue 38 item 4)", () => {
  it("is refused with one line and exit 2, and starts no command and imports no module", async () => {
    const url = await freshDatabase(inject("pgUrl"));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await tamperedRecordScenario(
        url,
        async (runId) => {
          const { rows } = await client.query("SELECT options FROM deputy.runs WHERE run_id = $1", [runId]);
          return rows[0].options as Record<string, unknown>;
        },
        async (runId, options) => {
          await client.query("UPDATE deputy.runs SET options = $1::jsonb WHERE run_id = $2", [
            JSON.stringify(options),
            runId,
          ]);
        },
      );
    } finally {
      await client.end();
    }
  });
});
