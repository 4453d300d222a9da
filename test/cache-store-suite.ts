import { describe, expect, it } from "vitest";
import type { CacheEntry } from "../src/plan/index.js";
import type { StoreUnderTest } from "./run-store-suite.js";
import { PROTO_NAMES } from "./prototype-names.js";

const T0 = 1_800_000_000_000;

function entry(key: string, scope: string, value: unknown, expiresAt: number | null): CacheEntry {
  return { key, scope, value, createdAt: T0, expiresAt };
}

/** The cache half of the RunStore conformance suite (see `run-store-suite.ts`): every store passes it. */
export function cacheStoreSuite(name: string, make: () => StoreUnderTest | Promise<StoreUnderTest>) {
  describe(`RunStore cache conformance: ${name}`, () => {
    it("keeps a value until it expires, by the caller's clock, and replaces one under the same key", async () => {
      const { store } = await make();
      expect(await store.getCached("k", T0)).toBeUndefined();
      await store.putCached(entry("k", "tool:lookup", { rows: [1, "two", null] }, T0 + 1000));
      expect(await store.getCached("k", T0 + 999)).toEqual(
        entry("k", "tool:lookup", { rows: [1, "two", null] }, T0 + 1000),
      );
      expect(await store.getCached("k", T0 + 1000)).toBeUndefined();
      await store.putCached(entry("k", "tool:lookup", "fresh", null));
      expect((await store.getCached("k", T0 + 10 ** 9))?.value).toBe("fresh");
      // What a reader got is a copy: changing it changes nothing stored.
      const got = (await store.getCached("k", T0))!;
      (got as { value: unknown }).value = "changed";
      expect((await store.getCached("k", T0))?.value).toBe("fresh");
      await store.close();
    });

    it("survives a reopen (shared by every process on the store)", async () => {
      const { store, reopen } = await make();
      await store.putCached(entry("k", "tool:t", [1, 2], null));
      if (!reopen) return store.close();
      await store.close();
      const again = reopen();
      expect((await again.getCached("k", T0))?.value).toEqual([1, 2]);
      await again.close();
    });

    it("clears one scope, only expired entries, or everything, and says how many", async () => {
      const { store } = await make();
      await store.putCached(entry("a1", "tool:a", 1, T0 + 10));
      await store.putCached(entry("a2", "tool:a", 2, null));
      await store.putCached(entry("b1", "tool:b", 3, T0 + 10));
      await store.putCached(entry("p1", "proposal:local", 4, null));
      expect(await store.clearCache({ scope: "tool:a", expiredAt: T0 + 10 })).toBe(1);
      expect(await store.getCached("a2", T0)).toBeDefined();
      expect(await store.clearCache({ scope: "tool:a" })).toBe(1);
      expect(await store.getCached("a2", T0)).toBeUndefined();
      expect(await store.getCached("b1", T0)).toBeDefined();
      expect(await store.clearCache({ scope: "tool:none" })).toBe(0);
      expect(await store.clearCache()).toBe(2);
      expect(await store.getCached("p1", T0)).toBeUndefined();
      await store.close();
    });

    it("keeps Object.prototype's names as keys and scopes like any other", async () => {
      const { store } = await make();
      for (const name of PROTO_NAMES) {
        expect(await store.getCached(name, T0), name).toBeUndefined();
        await store.putCached(entry(name, name, `v ${name}`, null));
      }
      for (const name of PROTO_NAMES) expect((await store.getCached(name, T0))?.value).toBe(`v ${name}`);
      expect(await store.clearCache({ scope: "constructor" })).toBe(1);
      await store.close();
    });
  });
}
