import { describe, expect, it } from "vitest";
import { cacheProposals, CachedDelegate } from "../delegate/backends/cached-delegate.js";
import { alertTriageModel, alertTriageTools } from "./alert-triage.fixture.js";
import { DistilledDelegate } from "./distilled-delegate.js";

describe("a DistilledDelegate's proposals are cacheable", () => {
  it("has an identity from its model (the same for the same model), and a reuse is the same proposal", async () => {
    const { model } = alertTriageModel();
    const delegate = new DistilledDelegate({ model });
    expect(delegate.cacheIdentity).toMatch(/^[0-9a-f]{32}$/);
    expect(new DistilledDelegate({ model, name: "other" }).cacheIdentity).toBe(delegate.cacheIdentity);
    const changed = structuredClone(model);
    changed.recommendedMinConfidence = (changed.recommendedMinConfidence ?? 0.5) / 2;
    expect(new DistilledDelegate({ model: changed }).cacheIdentity).not.toBe(delegate.cacheIdentity);
    const cached = cacheProposals(delegate);
    expect(cached).toBeInstanceOf(CachedDelegate);
    const request = {
      instruction: "Disk usage on db-3 is 97%",
      facts: { alert_id: "A-1", environment: "prod", severity: "high" },
      tools: alertTriageTools(),
    };
    const first = await cached.propose(request);
    const second = await cached.propose(request);
    expect(second.cached).toBe(true);
    const { latencyMs: _a, ...fresh } = first;
    const { latencyMs: _b, cached: _c, ...reused } = second;
    expect(reused).toEqual(fresh);
  });
});
