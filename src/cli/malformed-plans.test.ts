import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { main } from "./main.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-malformed-"));
writeFileSync(
  join(dir, "tools.mjs"),
  `export const tools = [{ name: "echo", description: "echo", input: { type: "object", properties: { v: {} }, required: ["v"], additionalProperties: false }, run: ({ v }) => v }];`,
);

const valid = {
  name: "p",
  objective: "o",
  metadata: { max_parallel_tasks: 2 },
  nodes: [
    { id: "a", tool: "echo", args: { v: [1, 2] }, store_as: "a" },
    {
      id: "b",
      tool: "echo",
      depends_on: ["a"],
      args: { v: "{item}" },
      store_as: "b_{index}",
      for_each: { source: "{artifacts.a}" },
      when: "ctx.status.a == 'ok'",
    },
  ],
};

// Where a mutation lands, and what it puts there: hostile values included (prototype names, deep nesting,
// wrong types, huge numbers, CEL and template syntax).
const hostile = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    "__proto__",
    "constructor",
    "toString",
    "{artifacts.__proto__}",
    "{item.constructor}",
    "ctx.s.matches('(a+)+$')",
    "nosuch(ctx)",
    "",
    2 ** 53,
    -1,
    1e308,
    "{",
    "}{",
  ),
  // Described, and built inside the property: fast-check's own printer would overflow on the value itself. Up to
  // 1000 deep because this test's JSON.stringify runs on a worker's smaller stack; bad-input.test.ts writes a
  // plan 20,000 deep as text.
  fc.integer({ min: 1, max: 1000 }).map((d) => new Deep(d)),
);

class Deep {
  constructor(readonly depth: number) {}
  build(): unknown {
    return JSON.parse("[".repeat(this.depth) + "]".repeat(this.depth)) as unknown;
  }
}
const path = fc.constantFrom(
  ["name"],
  ["nodes"],
  ["metadata"],
  ["metadata", "max_parallel_tasks"],
  ["metadata", "execution_timeout"],
  ["nodes", 0],
  ["nodes", 0, "id"],
  ["nodes", 0, "type"],
  ["nodes", 0, "tool"],
  ["nodes", 0, "args"],
  ["nodes", 0, "store_as"],
  ["nodes", 0, "timeout"],
  ["nodes", 0, "retry"],
  ["nodes", 1, "depends_on"],
  ["nodes", 1, "for_each"],
  ["nodes", 1, "for_each", "select"],
  ["nodes", 1, "for_each", "source"],
  ["nodes", 1, "when"],
  ["nodes", 1, "args", "v"],
  ["nodes", 1, "store_as"],
  ["nodes", 1, "extra_field"],
);

function mutate(plan: unknown, at: readonly (string | number)[], value: unknown): unknown {
  const copy = structuredClone(plan) as Record<string | number, unknown>;
  let target = copy;
  for (const step of at.slice(0, -1)) {
    const next = target[step];
    if (typeof next !== "object" || next === null) return copy;
    target = next as Record<string | number, unknown>;
  }
  const built = value instanceof Deep ? value.build() : value;
  Object.defineProperty(target, at.at(-1)!, {
    value: built,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return copy;
}

describe("generated malformed plans", () => {
  it("validate never crashes: exit 0 for a plan that is still sound, else exit 2 with every issue listed", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(path, hostile), { minLength: 1, maxLength: 3 }),
        async (mutations) => {
          const plan = mutations.reduce<unknown>((p, [at, v]) => mutate(p, at, v), valid);
          const file = join(dir, `plan-${n++}.json`);
          writeFileSync(file, JSON.stringify(plan));
          let out = "";
          const code = await main(["validate", file, "--tools", join(dir, "tools.mjs")], {
            stdout: (t) => (out += t),
            stderr: (t) => (out += t),
            isTTY: false,
          });
          expect([0, 2]).toContain(code);
          if (code === 2) expect(out).toMatch(/^(error|deputy:)/m);
          expect(out).not.toMatch(/\n\s+at /); // no stack trace
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});
