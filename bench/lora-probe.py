"""Probe: LoRA-tune the 0.5B's attention on the team's decisions (8 labels), report held-out sets' accuracy from
the classification head, save the adapter, and (with --gguf) merge it and write a GGUF copy deputy can use as
`--encoder gguf=PATH`.

usage: bench/lora-probe.py --base BASE.gguf [--train FILE...] [--epochs E] [--seed S] [--save DIR | --load DIR]
                           [--eval FILE...] [--scores OUT.jsonl] [--gguf OUT.gguf]

--train trains an adapter (and head) on the decision records of the files; --load reads one --save wrote instead.
Each --eval file is scored by the head and reported on its own; --scores writes one line per scored record
(file, id, label, predicted, confidence, probabilities).
"""
import argparse, json, math, random, sys, time
from pathlib import Path

import numpy as np
import torch
import gguf
from transformers import AutoModelForSequenceClassification, AutoTokenizer
from peft import LoraConfig, PeftModel, get_peft_model

ap = argparse.ArgumentParser()
ap.add_argument("--base", required=True)
ap.add_argument("--train", nargs="*", default=[])
ap.add_argument("--eval", nargs="*", default=[])
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--epochs", type=float, default=1.0)
ap.add_argument("--save")
ap.add_argument("--load")
ap.add_argument("--scores")
ap.add_argument("--gguf")
args = ap.parse_args()
if bool(args.train) == bool(args.load): sys.exit("lora-probe: give --train FILE... or --load DIR, not both")
base, seed, epochs = args.base, args.seed, args.epochs
torch.manual_seed(seed); random.seed(seed); np.random.seed(seed)
torch.set_num_threads(2)

LABELS = [
    ("escalate_to_pagerduty", "urgency", "high"), ("escalate_to_pagerduty", "urgency", "low"),
    ("file_jira_ticket", "priority", "P2"), ("file_jira_ticket", "priority", "P3"), ("file_jira_ticket", "priority", "P4"),
    ("ignore_alert", "reason", "informational"), ("ignore_alert", "reason", "non-production"), ("ignore_alert", "reason", "self-resolved"),
]

def label(call):
    for i, (name, key, value) in enumerate(LABELS):
        if call["name"] == name and call["arguments"].get(key) == value:
            return i
    return None

def records(path):
    return [json.loads(l) for l in open(path) if l.strip()]

def common_prefix(instructions):
    p = instructions[0]
    for s in instructions:
        i = 0
        while i < len(p) and i < len(s) and p[i] == s[i]: i += 1
        p = p[:i]
    cut = max(p.rfind(" "), p.rfind("\n"), p.rfind("\t"))
    return "" if cut < 0 else p[: cut + 1]

def canonical(v):
    return json.dumps(v, separators=(",", ":"), sort_keys=True, ensure_ascii=False)

def task_text(r, prefix):
    facts = r.get("facts") or {}
    lines = [f"{k}: {facts[k] if isinstance(facts[k], str) else canonical(facts[k])}" for k in sorted(facts)]
    ins = r["instruction"]
    if prefix and ins.startswith(prefix): ins = ins[len(prefix):]
    return "\n".join([*lines, ins, "Action:"])

train = [r for f in args.train for r in records(f) if r.get("finalCall") and label(r["finalCall"]) is not None]
d = str(Path(base).parent); name = Path(base).name
tok = AutoTokenizer.from_pretrained(d, gguf_file=name)
tok.padding_side = "right"
if tok.pad_token is None: tok.pad_token = tok.eos_token
model = AutoModelForSequenceClassification.from_pretrained(d, gguf_file=name, num_labels=len(LABELS), torch_dtype=torch.float32)
model.config.pad_token_id = tok.pad_token_id
if args.load:
    meta = json.load(open(Path(args.load) / "deputy-probe.json"))
    prefix = meta["prefix"]
    model = PeftModel.from_pretrained(model, args.load)
    print(f"loaded {args.load} (trained on {meta['trained']} decisions, seed {meta['seed']}); prefix {prefix!r}", flush=True)
else:
    prefix = common_prefix([r["instruction"] for r in train])
    print(f"{len(train)} training decisions; prefix {prefix!r}", flush=True)
    with torch.no_grad(): model.score.weight.zero_()  # start from the uniform guess, not a random head
    cfg = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"], modules_to_save=["score"], task_type="SEQ_CLS")
    model = get_peft_model(model, cfg)
    model.print_trainable_parameters()

def batches(items, size):
    for i in range(0, len(items), size): yield items[i : i + size]

def encode(rs):
    texts = [task_text(r, prefix) for r in rs]
    return tok(texts, padding=True, truncation=True, max_length=256, add_special_tokens=False, return_tensors="pt")

t0 = time.time()
if not args.load:
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-4, weight_decay=0.0)
    B = 8
    steps = math.ceil(len(train) * epochs / B)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 10) * max(0.0, 1 - s / steps))
    order = []
    while len(order) < steps * B:
        o = list(range(len(train))); random.shuffle(o); order += o
    model.train(); t0 = time.time(); avg = None
    for step in range(steps):
        rs = [train[i] for i in order[step * B : (step + 1) * B]]
        enc = encode(rs)
        y = torch.tensor([label(r["finalCall"]) for r in rs])
        loss = torch.nn.functional.cross_entropy(model(**enc).logits, y)
        loss.backward(); opt.step(); sched.step(); opt.zero_grad()
        avg = loss.item() if avg is None else 0.9 * avg + 0.1 * loss.item()
        if step % 10 == 0 or step == steps - 1:
            el = time.time() - t0
            print(f"step {step + 1}/{steps} loss {avg:.3f} {el / (step + 1):.1f} s/step, ~{el / (step + 1) * (steps - step - 1) / 60:.0f} min left", flush=True)
    if args.save:
        model.save_pretrained(args.save)
        json.dump({"prefix": prefix, "trained": len(train), "seed": seed, "epochs": epochs, "train": args.train, "labels": LABELS}, open(Path(args.save) / "deputy-probe.json", "w"), indent=1)
        print(f"saved the adapter to {args.save}", flush=True)

model.eval()
scores = open(args.scores, "w") if args.scores else None
for evalfile in args.eval:
    held = [r for r in records(evalfile) if r.get("finalCall") and label(r["finalCall"]) is not None]
    probs = []
    with torch.no_grad():
        for rs in batches(held, 16):
            probs += torch.softmax(model(**encode(rs)).logits, -1).tolist()
    ys = [label(r["finalCall"]) for r in held]
    pred = [int(np.argmax(p)) for p in probs]; conf = [max(p) for p in probs]
    acc = sum(p == y for p, y in zip(pred, ys)) / len(ys)
    print(f"{evalfile}: {len(ys)} held out, label accuracy {acc:.3f}")
    for t in (0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99):
        sel = [(p == y) for p, y, c in zip(pred, ys, conf) if c >= t]
        print(f"  >= {t}: {len(sel) / len(ys):.3f} decided at {sum(sel) / max(1, len(sel)):.3f} ({len(sel) - sum(sel)} wrong)")
    ranked = sorted(zip(conf, [p == y for p, y in zip(pred, ys)]), key=lambda x: -x[0])
    best = 0; right = 0
    for i, (c, ok) in enumerate(ranked):
        right += ok
        if right / (i + 1) >= 0.97: best = i + 1
    print(f"  oracle share at >= 97 %: {best / len(ys):.3f}", flush=True)
    if scores:
        for r, y, p, c, pr in zip(held, ys, pred, conf, probs):
            scores.write(json.dumps({"file": evalfile, "id": (r.get("facts") or {}).get("alert_id"), "label": y, "predicted": p, "confidence": c, "probs": pr}) + "\n")
if scores: scores.close()
if not args.gguf: sys.exit(0)
out = args.gguf

# Merge and write the GGUF: the attention weights as F16 with the adapter folded in, everything else copied raw.
merged = model.merge_and_unload()
sd = merged.state_dict()
reader = gguf.GGUFReader(base)
names = {"attn_q": "q_proj", "attn_k": "k_proj", "attn_v": "v_proj", "attn_output": "o_proj"}
replace = {}
for t in reader.tensors:
    parts = t.name.split(".")
    if len(parts) == 4 and parts[0] == "blk" and parts[2] in names and parts[3] == "weight":
        key = next(k for k in sd if k.endswith(f"layers.{parts[1]}.self_attn.{names[parts[2]]}.weight"))
        w = sd[key].float().numpy()
        replace[t.name] = w.astype(np.float16)
# Orientation check on one tensor the adapter left alone: the GGUF's dequantized values equal the loaded weights.
probe = next(t for t in reader.tensors if t.name == "blk.0.ffn_down.weight")
ref = next(v for k, v in sd.items() if k.endswith("layers.0.mlp.down_proj.weight")).float().numpy()
deq = gguf.quants.dequantize(probe.data, probe.tensor_type)
assert deq.shape == ref.shape and np.abs(deq - ref).max() < 1e-3, (deq.shape, ref.shape)
arch = reader.get_field("general.architecture").contents()
writer = gguf.GGUFWriter(out, arch)
for field in reader.fields.values():
    if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."): continue
    vt = field.types[0]; st = field.types[-1] if vt == gguf.GGUFValueType.ARRAY else None
    value = field.contents()
    if field.name == "general.name": value = f"{value} (deputy-tuned)"
    writer.add_key_value(field.name, value, vt, sub_type=st)
writer.add_uint32("deputy.tuned.seed", seed)
for t in reader.tensors:
    if t.name in replace:
        a = replace[t.name]
        writer.add_tensor_info(t.name, a.shape, a.dtype, a.nbytes, gguf.GGMLQuantizationType.F16)
    else:
        writer.add_tensor_info(t.name, t.data.shape, t.data.dtype, t.data.nbytes, t.tensor_type)
writer.write_header_to_file(); writer.write_kv_data_to_file(); writer.write_ti_data_to_file()
for t in reader.tensors:
    writer.write_tensor_data(replace[t.name] if t.name in replace else t.data, tensor_endianess=reader.endianess)
writer.close()
print(f"wrote {out} ({Path(out).stat().st_size // 2**20} MB) in {(time.time() - t0) / 60:.1f} min")
