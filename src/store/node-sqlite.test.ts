import { describe, expect, it } from "vitest";
import { isSqliteExperimentalWarning, nodeSqlite } from "./node-sqlite.js";

describe("nodeSqlite", () => {
  it("loads Node's SQLite driver once", () => {
    const sqlite = nodeSqlite();
    expect(nodeSqlite()).toBe(sqlite);
    const db = new sqlite.DatabaseSync(":memory:");
    expect(db.prepare("SELECT 1 + 1 AS two").get()).toEqual({ two: 2 });
    db.close();
  });

  it("recognises node:sqlite's ExperimentalWarning (as Node 22 emits it) and nothing else", () => {
    const message = "SQLite is an experimental feature and might change at any time";
    expect(isSqliteExperimentalWarning(message, "ExperimentalWarning")).toBe(true);
    expect(isSqliteExperimentalWarning(message, { type: "ExperimentalWarning" })).toBe(true);
    const error = Object.assign(new Error(message), { name: "ExperimentalWarning" });
    expect(isSqliteExperimentalWarning(error, undefined)).toBe(true);
    expect(isSqliteExperimentalWarning(message, "DeprecationWarning")).toBe(false);
    expect(
      isSqliteExperimentalWarning(
        "WASI is an experimental feature and might change at any time",
        "ExperimentalWarning",
      ),
    ).toBe(false);
    expect(isSqliteExperimentalWarning("something else", undefined)).toBe(false);
  });
});
