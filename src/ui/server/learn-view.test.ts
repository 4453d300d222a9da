/**
 * The console's learning view (`deputy ui --learn MODEL.json`): a node's last curve and last promotion from the
 * history `deputy learn` writes, served over real HTTP; a history line that is not what learn writes is left out or
 * read field by field, never passed through.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { learnNode } from "../../eval/learn/learn-node.js";
import { LEARN_NODE, learnExamples } from "../../eval/learn/learn.fixture.js";
import { applyLearnResult, nodeFiles } from "../../eval/learn/node-files.js";
import { MemoryRunStore } from "../../store/memory-run-store.js";
import { learnView } from "./learn-view.js";
import { serveConsole } from "./serve-console.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-learn-view-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("learnView", () => {
  it("shows a node's last curve and last promotion, over HTTP", { timeout: 120_000 }, async () => {
    const files = nodeFiles(join(dir, "route.model.json"));
    const result = await learnNode({ node: LEARN_NODE, decisions: learnExamples(150), curvePoints: 2 });
    expect(result.verdict.promote).toBe(true);
    applyLearnResult(result, files, new Date("2026-12-03T08:00:00Z"));
    // a kept turn after it, and lines that are not learn's
    applyLearnResult(
      { ...result, verdict: { promote: false, reason: "not better" } },
      files,
      new Date("2026-12-03T09:00:00Z"),
    );
    appendFileSync(files.history, '{"broken\n{"at": 1, "promoted": "yes"}\n');
    appendFileSync(
      files.history,
      JSON.stringify({
        at: "x",
        node: LEARN_NODE,
        promoted: false,
        reason: { html: "<b>" },
        curve: [{ decisions: "9" }],
      }) + "\n",
    );
    const view = learnView([files.model], LEARN_NODE)!;
    expect(view.turns).toBe(3);
    expect(view.last).toMatchObject({ promoted: false, reason: "", challenger: null });
    expect(view.curve).toEqual([]);
    expect(view.lastPromotion).toMatchObject({
      at: "2026-12-03T08:00:00.000Z",
      promoted: true,
      train: result.counts.train,
      challenger: { share: result.challenger!.measured.share },
    });
    expect(learnView([files.model], "another-node")).toBeNull();

    const assetsDir = join(dir, "public");
    mkdirSync(assetsDir);
    writeFileSync(join(assetsDir, "index.html"), "<!doctype html>");
    const served = await serveConsole({
      store: new MemoryRunStore(),
      port: 0,
      learn: [files.model],
      assetsDir,
    });
    try {
      const get = (path: string) =>
        fetch(`${served.origin}${path}`, { headers: { "X-Deputy-Token": served.token } }).then((r) =>
          r.json(),
        );
      expect(await get(`/api/learn/${LEARN_NODE}`)).toEqual({ learn: JSON.parse(JSON.stringify(view)) });
      expect(await get("/api/learn/another-node")).toEqual({ learn: null });
    } finally {
      await served.close();
    }
  });
});
