import { describe, expect, it } from "vitest";
import { DelegateBackendError } from "../../errors/index.js";
import { parseProposal } from "./parse-proposal.js";

describe("parseProposal", () => {
  it("parses a call and a decline", () => {
    expect(parseProposal("b", '{"name":"t","arguments":{"x":1}}')).toEqual({
      name: "t",
      arguments: { x: 1 },
    });
    expect(parseProposal("b", '{"name":null,"arguments":{}}')).toEqual({ name: null, arguments: {} });
    expect(parseProposal("b", '{"name":null}')).toEqual({ name: null, arguments: {} });
  });

  it.each(["", "{", "[]", '"x"', '{"name":3}', '{"name":"t","arguments":[]}', '{"arguments":{}}'])(
    "turns %j into a DelegateBackendError that keeps the raw answer",
    (raw) => {
      let error: unknown;
      try {
        parseProposal("b", raw);
      } catch (e) {
        error = e;
      }
      expect(DelegateBackendError.isInstance(error)).toBe(true);
      expect((error as DelegateBackendError).raw).toBe(raw);
      expect((error as DelegateBackendError).backend).toBe("b");
    },
  );
});
