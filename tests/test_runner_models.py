"""The tiny offline model and the model loader's refusals."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import pytest  # noqa: E402

from prereg.canonical import sha256_file  # noqa: E402
from prereg.errors import UserError  # noqa: E402
from runner import models  # noqa: E402


@pytest.fixture(scope="module")
def torch():
    """torch, imported when a test here runs: collecting this file (every xdist worker collects
    every file) does not load it where no test uses it."""
    import torch

    return torch


@pytest.fixture(scope="session")
def tiny():
    return models.load_model_and_tokenizer("tiny:qwen2", None)


def test_tiny_build_is_byte_identical(tmp_path, tiny):
    _, _, info = tiny
    a = models.build_tiny_model("qwen2", tmp_path / "a")
    b = models.build_tiny_model("qwen2", tmp_path / "b")
    sha_a, sha_b = sha256_file(a / "model.safetensors"), sha256_file(b / "model.safetensors")
    assert sha_a == sha_b == info["weights_sha256"]["model.safetensors"]
    assert sha256_file(a / "config.json") == info["config_sha256"]
    assert sha256_file(a / "tokenizer.json") == info["tokenizer_sha256"]["tokenizer.json"]


def test_tiny_build_refuses_existing_folder(tmp_path):
    (tmp_path / "x").mkdir()
    with pytest.raises(UserError, match="exists"):
        models.build_tiny_model("qwen2", tmp_path / "x")


def test_tiny_info_and_architecture(tiny):
    model, tokenizer, info = tiny
    assert info["kind"] == "tiny" and info["name"] == "tiny:qwen2"
    assert set(info) >= {"name", "revision", "kind", "weights_sha256", "config_sha256", "num_parameters", "path"}
    assert info["num_parameters"] == sum(p.numel() for p in model.parameters())
    assert type(model).__name__ == "Qwen2ForCausalLM"
    cfg = model.config
    assert (cfg.hidden_size, cfg.num_hidden_layers, cfg.num_attention_heads, cfg.num_key_value_heads) == (64, 2, 4, 2)
    assert cfg.vocab_size == len(tokenizer)


def test_tiny_reload_from_path_gives_same_logits(tiny, torch):
    from transformers import AutoModelForCausalLM

    model, tokenizer, info = tiny
    again = AutoModelForCausalLM.from_pretrained(info["path"])
    ids = tokenizer(["12+3="], return_tensors="pt").input_ids
    with torch.no_grad():
        assert torch.equal(model(ids).logits, again(ids).logits)


def test_tiny_generates(tiny, torch):
    model, tokenizer, _ = tiny
    enc = tokenizer(["1+2=", "7-3+1="], return_tensors="pt", padding=True)
    with torch.no_grad():
        out = model.generate(**enc, max_new_tokens=8, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    assert out.shape == (2, enc.input_ids.shape[1] + 8) or out.shape[1] <= enc.input_ids.shape[1] + 8
    texts = tokenizer.batch_decode(out[:, enc.input_ids.shape[1]:], skip_special_tokens=True)
    assert all(isinstance(t, str) for t in texts) and any(texts)


def test_tokenizer_round_trip_and_padding(tiny):
    from transformers import PreTrainedTokenizerFast

    _, tokenizer, _ = tiny
    assert isinstance(tokenizer, PreTrainedTokenizerFast)
    text = "0123456789 +-*/= #### -42\nQ: x?"
    ids = tokenizer(text).input_ids
    assert len(ids) == len(text)  # one token per character
    assert tokenizer.decode(ids) == text
    digit_ids = [tokenizer.convert_tokens_to_ids(d) for d in "0123456789"]
    assert len(set(digit_ids)) == 10 and None not in digit_ids
    built = models.build_tiny_tokenizer()  # what AutoTokenizer reloads is what was built
    assert built(text).input_ids == ids and built.get_vocab() == tokenizer.get_vocab()
    assert tokenizer.padding_side == "left"
    assert tokenizer.pad_token is not None and tokenizer.eos_token is not None
    assert tokenizer.pad_token_id != tokenizer.eos_token_id
    batch = tokenizer(["1", "123"], padding=True)
    assert batch.input_ids[0][0] == tokenizer.pad_token_id and batch.attention_mask[0][:2] == [0, 0]
    chat = tokenizer.apply_chat_template([{"role": "user", "content": "2+2="}], tokenize=False,
                                         add_generation_prompt=True)
    assert "2+2=" in chat and chat.endswith("assistant\n")


def test_unknown_tiny_spec_names_known_ones():
    with pytest.raises(UserError, match="tiny:qwen2"):
        models.load_model_and_tokenizer("tiny:nope", None)


def test_hub_model_without_revision_is_refused():
    with pytest.raises(UserError, match="model.revision"):
        models.load_model_and_tokenizer("Qwen/Qwen2.5-0.5B", None)


def test_bad_dtype_and_device_are_named():
    with pytest.raises(UserError, match="model.dtype"):
        models.load_model_and_tokenizer("tiny:qwen2", None, dtype="float8")
    with pytest.raises(UserError, match="device"):
        models.load_model_and_tokenizer("tiny:qwen2", None, device="tpu")


def test_bnb_config_plumbing():
    kwargs = models.bnb_config_kwargs({"load_in_4bit": True, "quant_type": "nf4", "double_quant": True,
                                       "compute_dtype": "bfloat16"})
    assert kwargs == {"load_in_4bit": True, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True,
                      "bnb_4bit_compute_dtype": "bfloat16"}
    with pytest.raises(UserError, match="model.quantization"):
        models.bnb_config_kwargs({"bits": 3})


def test_4bit_without_cuda_is_one_line_refusal(torch):
    if torch.cuda.is_available():
        pytest.skip("the refusal is for machines without CUDA")
    with pytest.raises(UserError) as exc:
        models.load_model_and_tokenizer("tiny:qwen2", None, quantization={"load_in_4bit": True})
    assert str(exc.value) == "4-bit quantization needs a CUDA GPU and bitsandbytes; none found"


def test_local_folder_model_is_hashed(tiny):
    _, _, info = tiny
    model, tokenizer, local = models.load_model_and_tokenizer(info["path"], None)
    assert local["kind"] == "local"
    assert local["weights_sha256"] == info["weights_sha256"] and local["config_sha256"] == info["config_sha256"]


def test_chat_special_tokens_are_single_tokens(tiny):
    _, tokenizer, _ = tiny
    ids = tokenizer("<|im_start|>user\n1+2=<|im_end|>").input_ids
    assert ids[0] == tokenizer.convert_tokens_to_ids("<|im_start|>") and len(ids) == 1 + 5 + 4 + 1
    assert tokenizer.decode(ids, skip_special_tokens=True) == "user\n1+2="


def test_unreachable_hub_model_is_one_line_error(monkeypatch):
    import huggingface_hub.constants as hub_constants

    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(UserError, match="model.name: cannot fetch rlprereg-test/no-such-model") as exc:
        models.load_model_and_tokenizer("rlprereg-test/no-such-model", "0" * 40)
    assert "\n" not in str(exc.value)


def test_hub_model_from_offline_cache_at_pinned_revision(tiny, tmp_path, monkeypatch):
    """The hub path for real, offline: a hub-layout cache holding one pinned snapshot."""
    import shutil

    import huggingface_hub.constants as hub_constants

    _, _, info = tiny
    commit = "1234567890abcdef1234567890abcdef12345678"
    snap = tmp_path / "models--rlprereg-test--tiny" / "snapshots" / commit
    shutil.copytree(info["path"], snap)
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", True)
    model, tokenizer, hub = models.load_model_and_tokenizer("rlprereg-test/tiny", commit)
    assert hub["kind"] == "hub" and hub["resolved_revision"] == commit and hub["revision"] == commit
    assert hub["weights_sha256"] == info["weights_sha256"]
    assert tokenizer.padding_side == "left"
    with pytest.raises(UserError, match="cannot fetch"):
        models.load_model_and_tokenizer("rlprereg-test/tiny", "f" * 40)
