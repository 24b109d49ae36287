"""Our model directory as a CTranslate2 model, for bench/ct2_compare.py (which runs it
with CTranslate2 importable).

The reference's names map onto CTranslate2's TransformerSpec: each layer's w_q/w_k/w_v
fused into one linear (self-attention; the cross-attention's w_k/w_v fused apart from
w_q), w_concat the output linear, norm1/norm2(/norm3) the layer norms of attention and
feed-forward, ffn.linear1/linear2, the final norms with pre_norm, decoder.linear (or the
tied embedding) the projection. Our sinusoid interleaves sin and cos where CTranslate2's
concatenates them, so the position table is stored; LayerNorm's epsilon is the
reference's 1e-12; sources are wrapped in bos ... eos as ours are.
"""
import json
import os
import shutil
import subprocess
import tempfile


def sinusoid_table(max_len, d_model):
    import torch  # the same float32 operations as model/positional_encoding.cpp
    table = torch.zeros(max_len, d_model)
    position = torch.arange(0, max_len).float().unsqueeze(1)
    denominator = torch.pow(10000.0, torch.arange(0, d_model, 2).float() / float(d_model))
    table[:, 0::2] = torch.sin(position / denominator)
    table[:, 1::2] = torch.cos(position / denominator)[:, : d_model // 2]
    return table


def convert(model_dir, out_dir, translator):
    """Our model directory as a CTranslate2 model (float32 weights)."""
    import numpy as np
    import torch
    from ctranslate2.specs import common_spec, transformer_spec

    cfg = json.load(open(os.path.join(model_dir, "config.json")))
    m = cfg["model"]
    vocab_dir = os.path.join(model_dir, "vocab")
    names = json.load(open(os.path.join(vocab_dir, "vocab.json")))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "weights.pt")
        subprocess.run([translator, "--model", model_dir, "--export-state-dict", path], check=True,
                       stderr=subprocess.DEVNULL)
        sd = torch.load(path, map_location="cpu")

    def array(name):
        return sd[name].detach().float().contiguous().numpy()

    def linear(spec, *layers):  # several Linear layers fused row-wise (q, k, v)
        spec.weight = np.concatenate([array(n + ".weight") for n in layers])
        if all(n + ".bias" in sd for n in layers):
            spec.bias = np.concatenate([array(n + ".bias") for n in layers])

    def norm(spec, name):
        spec.gamma, spec.beta = array(name + ".gamma"), array(name + ".beta")

    # Ours interleaves sin and cos; CTranslate2's own table concatenates them: store ours.
    def positions(side):
        if m.get("learned_positions", False):
            return array(side + ".emb.pos_emb.weight")
        return sinusoid_table(int(m["max_len"]), m["d_model"]).numpy()

    pre_norm = bool(m.get("pre_norm", False))
    spec = transformer_spec.TransformerSpec.from_config(m["n_layers"], m["n_head"], pre_norm=pre_norm,
                                                        activation=common_spec.Activation.RELU)
    scale = bool(m.get("scale_embedding", False))
    enc, dec = spec.encoder, spec.decoder
    enc.embeddings[0].weight = array("encoder.emb.tok_emb.weight")
    dec.embeddings.weight = array("decoder.emb.tok_emb.weight")
    enc.scale_embeddings = dec.scale_embeddings = scale
    enc.position_encodings.encodings = positions("encoder")
    dec.position_encodings.encodings = positions("decoder")
    if pre_norm:
        norm(enc.layer_norm, "encoder.norm")
        norm(dec.layer_norm, "decoder.norm")
    for i, layer in enumerate(enc.layer):
        p = "encoder.layers.%d." % i
        linear(layer.self_attention.linear[0], p + "attention.w_q", p + "attention.w_k", p + "attention.w_v")
        linear(layer.self_attention.linear[1], p + "attention.w_concat")
        norm(layer.self_attention.layer_norm, p + "norm1")
        linear(layer.ffn.linear_0, p + "ffn.linear1")
        linear(layer.ffn.linear_1, p + "ffn.linear2")
        norm(layer.ffn.layer_norm, p + "norm2")
    for i, layer in enumerate(dec.layer):
        p = "decoder.layers.%d." % i
        s, x = p + "self_attention.", p + "enc_dec_attention."
        linear(layer.self_attention.linear[0], s + "w_q", s + "w_k", s + "w_v")
        linear(layer.self_attention.linear[1], s + "w_concat")
        norm(layer.self_attention.layer_norm, p + "norm1")
        linear(layer.attention.linear[0], x + "w_q")
        linear(layer.attention.linear[1], x + "w_k", x + "w_v")
        linear(layer.attention.linear[2], x + "w_concat")
        norm(layer.attention.layer_norm, p + "norm2")
        linear(layer.ffn.linear_0, p + "ffn.linear1")
        linear(layer.ffn.linear_1, p + "ffn.linear2")
        norm(layer.ffn.layer_norm, p + "norm3")
    projection = sd.get("decoder.linear.weight", sd["decoder.emb.tok_emb.weight"])
    dec.projection.weight = projection.float().numpy()
    bias = array("decoder.linear.bias").copy() if "decoder.linear.bias" in sd else np.zeros(
        projection.shape[0], dtype=np.float32)
    # Our search never produces pad or bos; here their logits are pushed out of reach.
    pad, bos, eos = int(m.get("trg_pad_idx", 1)), int(m.get("trg_sos_idx", 2)), 3
    for t in {pad, bos} - {eos}:
        bias[t] = -1e9
    dec.projection.bias = bias

    def pieces(model_file):
        with open(os.path.join(vocab_dir, os.path.splitext(model_file)[0] + ".vocab"), encoding="utf-8") as f:
            return [line.rstrip("\n").split("\t")[0] for line in f]

    src, tgt = pieces(names["src"]), pieces(names["tgt"])
    spec.config.layer_norm_epsilon = 1e-12  # the reference's LayerNorm
    spec.config.add_source_bos = spec.config.add_source_eos = True
    spec.config.bos_token = spec.config.decoder_start_token = tgt[bos]
    spec.config.eos_token, spec.config.unk_token = tgt[eos], tgt[0]
    spec.register_source_vocabulary(src)
    spec.register_target_vocabulary(tgt)
    spec.validate()
    spec.optimize(quantization=None)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    spec.save(out_dir)
    for key in ("src", "tgt"):
        shutil.copy(os.path.join(vocab_dir, names[key]), os.path.join(out_dir, key + ".spm.model"))
    json.dump({"source": os.path.abspath(model_dir), "max_len": int(m["max_len"])},
              open(os.path.join(out_dir, "nmt_model.json"), "w"))
