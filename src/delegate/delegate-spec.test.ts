import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DelegateSpecRegistry, parseSpecValue, registerScriptedSpec } from "./delegate-spec.js";
import { ScriptedDelegate } from "./scripted-delegate.js";

// One registry for the file, with the built-in scripted kind, as the module-level table was.
const specs = registerScriptedSpec(new DelegateSpecRegistry());
const createDelegateFromSpec = (spec: string) => specs.create(spec);
const delegateSpecKinds = () => specs.kinds();
const registerDelegateSpec: DelegateSpecRegistry["register"] = (...a) => specs.register(...a);
const registerDelegateSpecWrapper: DelegateSpecRegistry["wrap"] = (...a) => specs.wrap(...a);

describe("createDelegateFromSpec", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-spec-"));
  const file = join(dir, "p.jsonl");
  writeFileSync(
    file,
    '{"node": "a", "proposal": {"name": null}}\n\n{"node": "a", "item": 2, "error": "boom"}\n',
  );

  it("builds a ScriptedDelegate from scripted=FILE with options", async () => {
    const d = await createDelegateFromSpec(`scripted=${file},name=replay,maxTools=3`);
    expect(d).toBeInstanceOf(ScriptedDelegate);
    expect([d.name, d.maxTools]).toEqual(["replay", 3]);
    expect((d as ScriptedDelegate).remaining).toBe(2);
    await expect(
      d.propose({ instruction: "", facts: {}, tools: [], context: { runId: "r", nodeId: "a", item: 2 } }),
    ).rejects.toThrow("boom");
    await expect(
      d.propose({ instruction: "", facts: {}, tools: [], context: { runId: "r", nodeId: "a", item: 2 } }),
    ).resolves.toMatchObject({ name: null, backend: "replay" });
    await expect(
      d.propose({ instruction: "", facts: {}, tools: [], context: { runId: "r", nodeId: "a" } }),
    ).rejects.toThrow('no scripted proposal left for node "a"');
  });

  it("explains unknown kinds and bad values", async () => {
    await expect(createDelegateFromSpec("nope=x")).rejects.toThrow(
      /Expected `--delegate` to be one of scripted=FILE/,
    );
    await expect(createDelegateFromSpec("scripted=")).rejects.toThrow(/--delegate/);
    await expect(createDelegateFromSpec(`scripted=${file},maxTools=zero`)).rejects.toThrow(/positive number/);
    writeFileSync(join(dir, "bad.jsonl"), '{"node": "a"}\n');
    await expect(createDelegateFromSpec(`scripted=${join(dir, "bad.jsonl")}`)).rejects.toThrow(/proposal/);
  });

  it("lets backends register more kinds", async () => {
    registerDelegateSpec(
      "fixed",
      (value) => new ScriptedDelegate({ entries: [], name: value }),
      "fixed=NAME",
    );
    expect(delegateSpecKinds().map((k) => k.kind)).toContain("fixed");
    expect((await createDelegateFromSpec("fixed=x=y")).name).toBe("x=y");
    expect(parseSpecValue("http://h:1/a,b,maxTools=5")).toEqual({
      main: "http://h:1/a,b",
      options: { maxTools: "5" },
    });
  });

  it("lets an option wrap any kind, and closes the inner backend when wrapping fails", async () => {
    let closed = 0;
    registerDelegateSpec("counted", (value) => {
      const d = new ScriptedDelegate({ entries: [], name: value });
      const close = d.close.bind(d);
      d.close = () => (closed++, close());
      return d;
    });
    registerDelegateSpecWrapper("tag", (inner, value) => {
      if (value === "bad") throw new Error("bad tag");
      return Object.assign(Object.create(inner) as typeof inner, { name: `${inner.name}+${value}` });
    });
    // The kind never sees the wrapper's option; its own options still reach it.
    expect((await createDelegateFromSpec("scripted=" + file + ",tag=t,name=r")).name).toBe("r+t");
    await expect(createDelegateFromSpec("counted=c,tag=bad")).rejects.toThrow("bad tag");
    expect(closed).toBe(1);
  });
});
