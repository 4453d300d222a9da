import { describe, expect, it } from "vitest";
import { TurnBatcher } from "./turn-batcher.js";

const turn = () => new Promise((r) => setImmediate(r));

describe("TurnBatcher", () => {
  it("hands what one turn added to one flush, on the next setImmediate", async () => {
    const batches: number[][] = [];
    const b = new TurnBatcher<number>((batch) => void batches.push(batch));
    b.add(1);
    b.add(2, 3);
    expect(batches).toEqual([]);
    expect(b.pending).toEqual([1, 2, 3]);
    expect(b.busy).toBe(true);
    await turn();
    b.add(4);
    await turn();
    expect(batches).toEqual([[1, 2, 3], [4]]);
    expect(b.busy).toBe(false);
  });

  it("serial: what arrives during a flush waits for it and goes out together next", async () => {
    const batches: number[][] = [];
    let release!: () => void;
    let running = 0;
    let most = 0;
    const b = new TurnBatcher<number>(
      async (batch) => {
        most = Math.max(most, ++running);
        batches.push(batch);
        if (batch[0] === 1) await new Promise<void>((r) => (release = r));
        running--;
      },
      { serial: true },
    );
    b.add(1);
    await turn();
    b.add(2);
    await turn();
    b.add(3);
    await turn();
    expect(batches).toEqual([[1]]);
    release();
    while (b.busy) await turn();
    expect(batches).toEqual([[1], [2, 3]]);
    expect(most).toBe(1);
  });

  it("not serial: each turn's batch goes out at once, even while an earlier one runs", async () => {
    const started: number[][] = [];
    let release!: () => void;
    const b = new TurnBatcher<number>(async (batch) => {
      started.push(batch);
      if (batch[0] === 1) await new Promise<void>((r) => (release = r));
    });
    b.add(1);
    await turn();
    b.add(2);
    await turn();
    expect(started).toEqual([[1], [2]]);
    release();
  });

  it("flushNow flushes at once; a flush that throws does not stop the next", async () => {
    const batches: number[][] = [];
    const b = new TurnBatcher<number>((batch) => {
      batches.push(batch);
      if (batch.includes(1)) throw new RangeError("bad batch");
    });
    b.add(1);
    await b.flushNow();
    expect(batches).toEqual([[1]]);
    b.add(2);
    await turn();
    expect(batches).toEqual([[1], [2]]);
  });
});
