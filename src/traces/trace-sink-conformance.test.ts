import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { traceSinkSuite } from "../../test/trace-sink-suite.js";
import { JsonlTraceSink } from "./jsonl-trace-sink.js";
import { MemoryTraceSink } from "./memory-trace-sink.js";
import { readTraces } from "./read-traces.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-sink-suite-"));
let files = 0;

traceSinkSuite({
  name: "MemoryTraceSink",
  create: () => new MemoryTraceSink(),
  read: (sink) => (sink as MemoryTraceSink).traces,
  redacts: false,
});

traceSinkSuite({
  name: "JsonlTraceSink",
  create: () => new JsonlTraceSink(join(dir, `t${files++}.jsonl`)),
  read: (sink) => readTraces((sink as JsonlTraceSink).path).traces,
  redacts: true,
});
