"""deputy's reader tuner: a LoRA adapter and a label head on a GGUF decoder, trained on the texts and labels deputy
writes (one JSON object per line: {"text": ..., "label": ...}), folded into the attention weights and written as a
GGUF copy that `--encoder gguf=PATH` reads. Run by deputy, not by hand; progress goes to stdout as one JSON object
per line ({"event": "start" | "step" | "written", ...}), errors to stderr with exit 2.

usage: deputy_tune.py --base BASE.gguf --set SET.jsonl --out OUT.gguf [--head HEAD.json] [--seed 1] [--epochs 1]
                      [--batch 8] [--max-steps N]

--head writes the label head: {"labels": [...], "weights": [[...] per label], "check": [{"text", "logits"}]}, the
logits over the last token's final hidden state (not scaled to unit length), and for a few training texts the
logits the tuned model gives them here, so the caller can check that llama.cpp reads the written GGUF alike.
"""
import argparse, json, math, os, random, sys, time
from pathlib import Path


def fail(message):
    print(f"deputy_tune: {message}", file=sys.stderr)
    sys.exit(2)


ap = argparse.ArgumentParser()
ap.add_argument("--base", required=True)
ap.add_argument("--set", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--head")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--epochs", type=float, default=1.0)
ap.add_argument("--batch", type=int, default=8)
ap.add_argument("--max-steps", type=int)
args = ap.parse_args()

try:
    import numpy as np
    import torch
    import gguf
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from peft import LoraConfig, get_peft_model
except ImportError as e:
    fail(f"needs torch, transformers, peft and gguf ({e.name} is missing)")

rows = [json.loads(l) for l in open(args.set) if l.strip()]
if not rows:
    fail(f"{args.set} holds no examples")
labels = sorted({r["label"] for r in rows})
if len(labels) < 2:
    fail("needs at least two labels")
index = {l: i for i, l in enumerate(labels)}
torch.manual_seed(args.seed); random.seed(args.seed); np.random.seed(args.seed)
torch.set_num_threads(max(1, os.cpu_count() or 1))

d, name = str(Path(args.base).parent), Path(args.base).name
try:
    tok = AutoTokenizer.from_pretrained(d, gguf_file=name)
    model = AutoModelForSequenceClassification.from_pretrained(d, gguf_file=name, num_labels=len(labels), dtype=torch.float32)
except Exception as e:  # not a file transformers reads as a decoder: say so in one line
    fail(f"cannot load {args.base} as a decoder to tune ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})")
tok.padding_side = "right"
if tok.pad_token is None:
    tok.pad_token = tok.eos_token
model.config.pad_token_id = tok.pad_token_id

# The folded weights are written back in the GGUF's layout, so that layout must be the loaded one: a query and a
# feed-forward matrix of the first layer, dequantized from the file, equal the weights transformers loaded (some
# architectures permute their attention weights on loading; writing those back unpermuted would break the model).
reader = gguf.GGUFReader(args.base)
arch = reader.get_field("general.architecture").contents()


def field(key, default=None):
    f = reader.get_field(f"{arch}.{key}")
    return default if f is None else f.contents()


n_head = field("attention.head_count"); n_kv = field("attention.head_count_kv", n_head)


def to_gguf(kind, w):
    # llama.cpp stores a llama model's query and key rows interleaved per head (its converter's permute), and
    # transformers undoes that on loading: do it again on the way back.
    if arch == "llama" and kind in ("attn_q", "attn_k"):
        h = n_head if kind == "attn_q" else n_kv
        return w.reshape(h, 2, w.shape[0] // h // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)
    return w


loaded = model.state_dict()
for kind, suffix in (("attn_q", "self_attn.q_proj"), ("attn_k", "self_attn.k_proj"), ("ffn_down", "mlp.down_proj")):
    t = next((t for t in reader.tensors if t.name == f"blk.0.{kind}.weight"), None)
    ref = next((v for k, v in loaded.items() if k.endswith(f"layers.0.{suffix}.weight")), None)
    if t is None or ref is None:
        fail(f"{args.base}: no blk.0.{kind}.weight; deputy tunes decoders with llama.cpp's tensor names")
    deq = gguf.quants.dequantize(t.data, t.tensor_type)
    ref = to_gguf(kind, ref.float().numpy())
    if deq.shape != ref.shape or np.abs(deq - ref).max() > 1e-3:
        fail(f"{args.base}: its blk.0.{kind}.weight is stored in another layout than transformers loads ({arch}); deputy cannot write it back")
del loaded
with torch.no_grad():
    model.score.weight.zero_()  # start from the uniform guess, not a random head
cfg = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"], modules_to_save=["score"], task_type="SEQ_CLS")
model = get_peft_model(model, cfg)

steps = math.ceil(len(rows) * args.epochs / args.batch)
if args.max_steps is not None:
    steps = min(steps, args.max_steps)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-4, weight_decay=0.0)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 10) * max(0.0, 1 - s / max(1, steps)))
order = []
while len(order) < steps * args.batch:
    o = list(range(len(rows))); random.shuffle(o); order += o
print(json.dumps({"event": "start", "examples": len(rows), "labels": labels, "steps": steps}), flush=True)
model.train(); t0 = time.time(); avg = None
for step in range(steps):
    batch = [rows[i] for i in order[step * args.batch : (step + 1) * args.batch]]
    enc = tok([r["text"] for r in batch], padding=True, truncation=True, max_length=256, add_special_tokens=False, return_tensors="pt")
    y = torch.tensor([index[r["label"]] for r in batch])
    loss = torch.nn.functional.cross_entropy(model(**enc).logits, y)
    loss.backward(); opt.step(); sched.step(); opt.zero_grad()
    avg = loss.item() if avg is None else 0.9 * avg + 0.1 * loss.item()
    print(json.dumps({"event": "step", "step": step + 1, "steps": steps, "loss": round(avg, 4), "seconds": round(time.time() - t0, 3)}), flush=True)

# Fold the adapter into the attention weights (F16) and copy everything else from the base, raw.
merged = model.merge_and_unload()
merged.eval()
if args.head:
    # The check texts are scored by the merged model with its attention weights rounded to F16 as written, so
    # that llama.cpp, reading the GGUF, should give the same logits up to its own arithmetic.
    with torch.no_grad():
        for layer in merged.model.layers:
            for n in ("q_proj", "k_proj", "v_proj", "o_proj"):
                w = getattr(layer.self_attn, n).weight
                w.copy_(w.half().float())
        texts = [r["text"] for r in rows[:4]]
        logits = [merged(**tok([t], add_special_tokens=False, return_tensors="pt")).logits[0].tolist() for t in texts]
    head = {"labels": labels, "weights": merged.score.weight.detach().float().tolist(),
            "check": [{"text": t, "logits": l} for t, l in zip(texts, logits)]}
    tmp_head = f"{args.head}.partial"
    with open(tmp_head, "w") as f:
        json.dump(head, f)
    os.replace(tmp_head, args.head)
sd = merged.state_dict()
names = {"attn_q": "q_proj", "attn_k": "k_proj", "attn_v": "v_proj", "attn_output": "o_proj"}
replace = {}
for t in reader.tensors:
    parts = t.name.split(".")
    if len(parts) == 4 and parts[0] == "blk" and parts[2] in names and parts[3] == "weight":
        key = next(k for k in sd if k.endswith(f"layers.{parts[1]}.self_attn.{names[parts[2]]}.weight"))
        replace[t.name] = to_gguf(parts[2], sd[key].float().numpy()).astype(np.float16)
tmp = f"{args.out}.partial"
writer = gguf.GGUFWriter(tmp, arch)
for field in reader.fields.values():
    if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
        continue
    vt = field.types[0]; st = field.types[-1] if vt == gguf.GGUFValueType.ARRAY else None
    value = field.contents()
    if field.name == "general.name":
        value = f"{value} (deputy-tuned)"
    writer.add_key_value(field.name, value, vt, sub_type=st)
writer.add_uint32("deputy.tuned.seed", args.seed)
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
os.replace(tmp, args.out)  # a killed run leaves no half-written model under the real name
print(json.dumps({"event": "written", "path": args.out, "seconds": round(time.time() - t0, 1)}), flush=True)
