import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")
        ? [join(dir, e.name)]
        : [],
  );
}

describe("deputy.unit_results has one owner", () => {
  it("is named in SQL only where it is created (the migrations) and by its owner module", () => {
    const naming = sources(src)
      .filter((file) => /\bunit_results\b/.test(readFileSync(file, "utf8")))
      .map((file) => relative(src, file).split("\\").join("/"))
      .sort();
    expect(naming).toEqual(["store/postgres-migrations.ts", "store/postgres-unit-results.ts"]);
  });
});
