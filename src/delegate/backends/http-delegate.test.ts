import { describe, expect, it } from "vitest";
import { DelegateBackendError, InvalidOptionError } from "../../errors/index.js";
import type { Proposal } from "../protocol.js";
import {
  HTTP_DELEGATE_DEFAULTS,
  HttpDelegate,
  type HttpDelegateOptions,
  type HttpProposeCall,
} from "./http-delegate.js";
import { LlamaServerDelegate } from "./llama-server-delegate.js";
import { OpenAICompatibleDelegate } from "./openai-compatible-delegate.js";

/** A backend whose `complete` is given: to test what the base does around it. */
class Probe extends HttpDelegate {
  constructor(
    options: Partial<HttpDelegateOptions>,
    private readonly body: (call: HttpProposeCall) => Promise<Omit<Proposal, "backend" | "latencyMs">>,
  ) {
    super({ baseUrl: "http://127.0.0.1:9", ...options }, { name: "probe", topLogprobs: 7 });
  }
  protected complete(call: HttpProposeCall) {
    return this.body(call);
  }
  get current() {
    return this.settings;
  }
}

const request = { instruction: "Look up a@x.io", facts: {}, tools: [] };
const untilAborted = (call: HttpProposeCall) =>
  new Promise<never>((_, reject) =>
    call.signal.addEventListener("abort", () => reject(new Error("stopped"))),
  );

describe("HttpDelegate, the base of the HTTP backends", () => {
  it("gives both HTTP backends the one defaults object, each naming only its name and topLogprobs", () => {
    const probe = new Probe({}, () => Promise.reject(new Error("unused")));
    expect(probe.current).toEqual({ ...HTTP_DELEGATE_DEFAULTS, topLogprobs: 7 });
    const llama = new LlamaServerDelegate({ baseUrl: "http://127.0.0.1:9/" });
    const openai = new OpenAICompatibleDelegate({ baseUrl: "http://127.0.0.1:9/v1" });
    for (const d of [llama, openai]) {
      expect([d.maxTools, d.maxInputChars]).toEqual([
        HTTP_DELEGATE_DEFAULTS.maxTools,
        HTTP_DELEGATE_DEFAULTS.maxInputChars,
      ]);
    }
    expect([llama.name, openai.name]).toEqual(["llama-server", "openai"]);
  });

  it("checks the shared options the same way for every backend", () => {
    for (const make of [
      (o: object) => new LlamaServerDelegate({ baseUrl: "http://h", ...o }),
      (o: object) => new OpenAICompatibleDelegate({ baseUrl: "http://h", ...o }),
    ]) {
      expect(() => make({ baseUrl: "ftp://h" })).toThrow(InvalidOptionError);
      expect(() => make({ timeoutMs: 0 })).toThrow(/timeoutMs/);
      expect(() => make({ retries: -1 })).toThrow(/retries/);
      expect(() => make({ temperature: 3 })).toThrow(/temperature/);
      expect(() => make({ temperature: 0.7, retries: 0 })).not.toThrow();
    }
  });

  it("maps whatever a backend throws to a DelegateBackendError, an abort or timeout by its code", async () => {
    const broken = new Probe({}, () => Promise.reject(new TypeError("bad field")));
    await expect(broken.propose(request)).rejects.toSatisfy(
      (e) => DelegateBackendError.isInstance(e) && /probe: bad field/.test(e.message),
    );
    const slow = new Probe({ timeoutMs: 20 }, untilAborted);
    await expect(slow.propose(request)).rejects.toMatchObject({ code: "DELEGATE_TIMEOUT" });
    const caller = new AbortController();
    const pending = slow.propose({ ...request, signal: caller.signal });
    caller.abort(new Error("gave up"));
    await expect(pending).rejects.toMatchObject({ code: "DELEGATE_ABORTED" });
  });

  it("stamps the backend and latency, aborts calls in flight on close() and refuses later ones", async () => {
    const ok = new Probe({}, () => Promise.resolve({ name: null, arguments: {}, confidence: null }));
    expect(await ok.propose(request)).toMatchObject({ name: null, backend: "probe" });
    const slow = new Probe({}, untilAborted);
    const pending = slow.propose(request);
    await slow.close();
    await expect(pending).rejects.toSatisfy((e) => DelegateBackendError.isInstance(e));
    await expect(slow.propose(request)).rejects.toThrow(/probe is closed/);
    await slow.close();
  });
});
