/**
 * The console's HTTP surface over a real server: loopback by default, the per-start token on every API call
 * (a header, never a cookie), Host and Origin checks against DNS rebinding and cross-site requests, and
 * decisions checked by the same gate as `deputy resolve` — a refused one changes nothing.
 */
import { spawn } from "node:child_process";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, exampleRun, type Fixture } from "./ui-harness.js";

const bin = fileURLToPath(new URL("../../bin/deputy.js", import.meta.url));

describe("deputy ui over HTTP", () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await exampleRun();
  });
  afterAll(async () => {
    await fx?.close();
  });

  const api = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token !== null) headers.set("X-Deputy-Token", init.token ?? fx.console.token);
    return fetch(`${fx.console.origin}${path}`, { ...init, headers });
  };
  const post = (path: string, body: unknown, init: RequestInit & { token?: string | null } = {}) =>
    api(path, {
      ...init,
      method: "POST",
      headers: { "Content-Type": "application/json", ...(init.headers as Record<string, string>) },
      body: JSON.stringify(body),
    });
  const resolution = async (item: number) =>
    (await fx.store.listItems(fx.runId, "triage_items", { offset: item, limit: 1 })).items[0]!.record
      .escalation!.resolution;

  it("binds to 127.0.0.1 and gives every start a new token", async () => {
    expect(fx.console.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fx.console.url).toBe(`${fx.console.origin}/#token=${fx.console.token}`);
    expect(fx.console.token.length).toBeGreaterThanOrEqual(32);
  });

  it("refuses API calls without the token, with a wrong one, or with it only in a cookie", async () => {
    expect((await api("/api/runs", { token: null })).status).toBe(401);
    expect((await api("/api/runs", { token: "x".repeat(fx.console.token.length) })).status).toBe(401);
    const skip = { nodeId: "triage_items", item: 11, by: "Mallory", skip: true };
    const cookie = await post(`/api/runs/${fx.runId}/resolve`, skip, {
      token: null,
      headers: { Cookie: `token=${fx.console.token}` },
    });
    expect(cookie.status).toBe(401);
    expect(await resolution(11)).toBeUndefined();
    expect((await api("/api/runs")).status).toBe(200);
  });

  it("refuses cross-origin requests and foreign Host names (DNS rebinding)", async () => {
    const skip = { nodeId: "triage_items", item: 11, by: "Mallory", skip: true };
    const cross = await post(`/api/runs/${fx.runId}/resolve`, skip, {
      headers: { Origin: "http://evil.example" },
    });
    expect(cross.status).toBe(403);
    expect(await resolution(11)).toBeUndefined();
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(fx.console.origin);
      request({ host: url.hostname, port: url.port, path: "/", headers: { Host: "evil.example" } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
        .on("error", reject)
        .end();
    });
    expect(status).toBe(421);
  });

  it("checks a decision with the gate of `deputy resolve`; a refused one changes nothing", async () => {
    const bad = await post(`/api/runs/${fx.runId}/resolve`, {
      nodeId: "triage_items",
      item: 5,
      by: "Ada",
      call: {
        name: "escalate_to_pagerduty",
        arguments: { alert_id: "ALR-1006", urgency: "critical", summary: "x" },
      },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/invalid_args/);
    expect(await resolution(5)).toBeUndefined();

    for (const body of [
      { nodeId: "triage_items", item: 5, by: "Ada" },
      { nodeId: "triage_items", item: 5, by: "Ada", skip: true, value: 1 },
      { nodeId: "triage_items", item: 5, skip: true },
      { nodeId: "triage_items", item: -1, by: "Ada", skip: true },
      { nodeId: "triage_items", item: 5, by: "Ada", skip: true, extra: 1 },
      { nodeId: "triage_items", item: 0, by: "Ada", skip: true },
      { nodeId: "nope", by: "Ada", skip: true },
    ]) {
      const res = await post(`/api/runs/${fx.runId}/resolve`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await post(`/api/runs/nope/resolve`, { nodeId: "x", by: "Ada", skip: true })).status).toBe(404);
    const notJson = await api(`/api/runs/${fx.runId}/resolve`, { method: "POST", body: "{nope" });
    expect(notJson.status).toBe(400);
    expect(await resolution(5)).toBeUndefined();

    const good = await post(`/api/runs/${fx.runId}/resolve`, {
      nodeId: "triage_items",
      item: 10,
      by: "Ada",
      value: { handled: true },
    });
    expect(good.status).toBe(200);
    expect(await resolution(10)).toEqual({ kind: "value", value: { handled: true }, by: "Ada" });
  });

  it("pages a node's items and counts them in the store", async () => {
    const res = await api(`/api/runs/${fx.runId}/nodes/triage_items/items?status=escalated&offset=1&limit=2`);
    const page = (await res.json()) as {
      total: number;
      counts: Record<string, number>;
      items: { record: { index: number } }[];
    };
    expect(page.total).toBe(5);
    expect(page.counts).toEqual({ ok: 7, escalated: 5 });
    expect(page.items.map((i) => i.record.index)).toEqual([5, 8]);
  });

  it("`deputy ui` refuses bad input with one line and exit 2", async () => {
    const missing = await cli(["ui", "--store", `${fx.dir}/none.db`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/No run store at .*none\.db/);
    const port = await cli(["ui", "--store", fx.store.path, "--port", "http"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("--port");
  });

  it("`deputy ui` prints a loopback URL with the token and serves the built client", async () => {
    const child = spawn(process.execPath, [bin, "ui", "--store", fx.store.path, "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /http:\/\/\S+/.exec(out);
          if (m) resolve(m[0]);
        });
        child.once("exit", (code) => reject(new Error(`deputy ui exited with ${code}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]{32}$/);
      const page = await fetch(url.replace(/#.*/, ""));
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(
        /<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/,
      );
      const token = url.split("#token=")[1]!;
      const runs = await fetch(new URL("/api/runs", url), { headers: { "X-Deputy-Token": token } });
      expect(((await runs.json()) as { runId: string }[]).map((r) => r.runId)).toContain(fx.runId);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  });
});
