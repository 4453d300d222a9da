/**
 * Small files (docs/STYLE: one concept a file, most under ~300 lines): no source file under src/ is over 400
 * lines, so a file that grows past it is split along a seam before it lands (issue 37). Tests are left out.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const MAX_LINES = 400;
const src = resolve(import.meta.dirname, "../src");

describe("source file size", () => {
  it(`no non-test .ts or .tsx file under src/ has more than ${MAX_LINES} lines`, () => {
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter(
      (f) => /\.tsx?$/.test(f) && !/\.test(-d)?\.tsx?$|\.test\.[a-z-]+\.tsx?$/.test(f),
    );
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map((f) => ({
        file: join("src", f),
        lines: readFileSync(join(src, f), "utf8").split("\n").length - 1,
      }))
      .filter((f) => f.lines > MAX_LINES);
    expect(over).toEqual([]);
  });
});
