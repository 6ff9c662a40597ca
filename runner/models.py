"""Models the runner can train: HF hub ids at a pinned revision, local folders, and ``tiny:``.

``tiny:<spec>`` is a random-weight Qwen2-architecture causal LM with a character-level
tokenizer, built offline by this module so that tests and demos never touch the network.
Its weights are drawn parameter by parameter (sorted by name) from a torch CPU generator
with a fixed seed that has nothing to do with the run seed, so every call on every machine
builds byte-identical ``model.safetensors`` independent of transformers' own init code. The
build is cached under ``$RLPREREG_CACHE`` (default ``~/.cache/rlprereg``)
``/tiny/<spec>-<key>`` where the key hashes the architecture, vocabulary and the builder's
source code; a cached folder is checked against the hashes recorded when it was built.

The returned ``info`` dict names the files that were actually loaded and their SHA-256, so
the stack fingerprint records what ran rather than what was asked for.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import string
import tempfile
from pathlib import Path
from typing import Any

from prereg.canonical import sha256_file, sha256_json
from prereg.errors import UserError

BUILDER_VERSION = 2
TINY_INIT_SEED = 20240229  # fixed; never derived from a run seed
TINY_INIT_STD = 0.02

# Architecture presets. ``qwen2`` is the test/demo model; ``qwen2.5-0.5b`` has the layer
# shapes of Qwen2.5-0.5B (smaller vocabulary) for GPU smoke benchmarks.
TINY_SPECS: dict[str, dict[str, Any]] = {
    "qwen2": {
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 128,
        "max_position_embeddings": 1024,
    },
    "qwen2.5-0.5b": {
        "hidden_size": 896,
        "num_hidden_layers": 24,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
        "intermediate_size": 4864,
        "max_position_embeddings": 4096,
    },
}

SPECIAL_TOKENS = ["<|endoftext|>", "<|pad|>", "<|im_start|>", "<|im_end|>"]
# Every printable ASCII character plus newline and tab, one token each (no merges).
CHARS = string.digits + string.ascii_lowercase + string.ascii_uppercase + string.punctuation + " \n\t"
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
_BUILD_RECORD = "rlprereg_tiny.json"
_DTYPES = ("float32", "bfloat16", "float16", "auto")


def cache_root() -> Path:
    return Path(os.environ.get("RLPREREG_CACHE") or Path.home() / ".cache" / "rlprereg")


def tiny_vocab() -> list[str]:
    """Token strings in id order: special tokens, then the characters in byte-level spelling."""
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    byte_char = bytes_to_unicode()
    return SPECIAL_TOKENS + [byte_char[ord(c)] for c in CHARS]


def _tiny_spec(spec: str) -> dict[str, Any]:
    if spec not in TINY_SPECS:
        raise UserError(f"model.name: unknown tiny model 'tiny:{spec}'; known: "
                        + ", ".join(f"tiny:{s}" for s in TINY_SPECS))
    return dict(TINY_SPECS[spec])


def tiny_key(spec: str) -> str:
    """Short hash of everything that determines the tiny model's bytes (builder code included)."""
    import inspect

    builder_source = inspect.getsource(build_tiny_tokenizer) + inspect.getsource(build_tiny_model)
    return sha256_json({"builder": BUILDER_VERSION, "spec": spec, "arch": _tiny_spec(spec),
                        "vocab": tiny_vocab(), "seed": TINY_INIT_SEED, "std": TINY_INIT_STD,
                        "chat_template": CHAT_TEMPLATE, "source": builder_source})[:16]


def build_tiny_tokenizer():
    """A character-level Qwen2 tokenizer (a ``PreTrainedTokenizerFast``), left padding.

    It is Qwen2's own byte-level BPE pipeline over a vocabulary of single printable ASCII
    characters with no merges, so ``AutoTokenizer`` (which forces ``Qwen2Tokenizer`` for a
    ``qwen2`` config) reloads exactly the tokenizer that was built. Characters outside
    printable ASCII, newline and tab are dropped by that pipeline (tiny model only).
    """
    from transformers.models.qwen2.tokenization_qwen2 import Qwen2Tokenizer

    vocab = {tok: i for i, tok in enumerate(tiny_vocab())}
    tokenizer = Qwen2Tokenizer(
        vocab=vocab, merges=[], eos_token="<|endoftext|>", pad_token="<|pad|>", unk_token=None,
        padding_side="left", model_max_length=max(a["max_position_embeddings"] for a in TINY_SPECS.values()),
        extra_special_tokens=["<|im_start|>", "<|im_end|>"],
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def build_tiny_model(spec: str, out_dir: str | Path) -> Path:
    """Build ``tiny:<spec>`` into ``out_dir`` (created; must not exist) and return it."""
    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    arch = _tiny_spec(spec)
    out = Path(out_dir)
    if out.exists():
        raise UserError(f"{out}: exists; refusing to overwrite")
    tokenizer = build_tiny_tokenizer()
    config = Qwen2Config(
        vocab_size=len(tiny_vocab()), hidden_act="silu", rms_norm_eps=1e-6, initializer_range=TINY_INIT_STD,
        tie_word_embeddings=False, use_sliding_window=False,
        bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id, **arch,
    )
    model = Qwen2ForCausalLM(config)
    gen = torch.Generator(device="cpu").manual_seed(TINY_INIT_SEED)
    with torch.no_grad():
        for name, param in sorted(model.named_parameters(), key=lambda kv: kv[0]):
            if name.endswith("norm.weight"):
                param.fill_(1.0)
            elif name.endswith(".bias"):
                param.zero_()
            else:
                param.copy_(torch.randn(param.shape, generator=gen, dtype=torch.float32) * TINY_INIT_STD)
    model.generation_config = GenerationConfig(
        bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    out.mkdir(parents=True)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    record = {"spec": spec, "key": tiny_key(spec), "files": _file_hashes(out, _weight_files(out))}
    (out / _BUILD_RECORD).write_text(json.dumps(record, indent=1, sort_keys=True))
    return out


def tiny_model_path(spec: str) -> Path:
    """The cached folder of ``tiny:<spec>``, built on first use (safe across processes)."""
    from filelock import FileLock

    root = cache_root() / "tiny"
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"{spec}-{tiny_key(spec)}"
    with FileLock(str(root / f"{final.name}.lock")):
        if not final.exists():
            tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=root))
            try:
                build_tiny_model(spec, tmp / "m")
                os.replace(tmp / "m", final)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        _check_tiny_cache(final)
    return final


def _check_tiny_cache(folder: Path) -> None:
    try:
        record = json.loads((folder / _BUILD_RECORD).read_text())
    except (OSError, ValueError):
        raise UserError(f"{folder}: tiny model cache has no build record; delete the folder to rebuild") from None
    actual = _file_hashes(folder, list(record["files"]))
    if actual != record["files"]:
        raise UserError(f"{folder}: tiny model cache does not match its build record; delete it to rebuild")


def _weight_files(folder: Path) -> list[str]:
    """Weight files a from_pretrained of ``folder`` reads (shards from the index when sharded)."""
    for index_name in ("model.safetensors.index.json", "pytorch_model.bin.index.json"):
        index = folder / index_name
        if index.exists():
            shards = sorted(set(json.loads(index.read_text())["weight_map"].values()))
            return [index_name, *shards]
    for single in ("model.safetensors", "pytorch_model.bin"):
        if (folder / single).exists():
            return [single]
    raise UserError(f"{folder}: no model weights (model.safetensors or pytorch_model.bin) found")


def _file_hashes(folder: Path, names: list[str]) -> dict[str, str]:
    return {name: sha256_file(folder / name) for name in sorted(names)}


def _tokenizer_files(folder: Path) -> list[str]:
    known = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json",
             "merges.txt", "tokenizer.model", "chat_template.jinja", "chat_template.json")
    return [n for n in known if (folder / n).exists()]


def torch_dtype(name: str):
    import torch

    if name not in _DTYPES:
        raise UserError(f"model.dtype: {name!r} is not one of {', '.join(_DTYPES)}")
    return "auto" if name == "auto" else getattr(torch, name)


def bnb_config_kwargs(quantization: dict) -> dict[str, Any]:
    """BitsAndBytesConfig keyword arguments for the lock's ``model.quantization`` block."""
    unknown = set(quantization) - {"load_in_4bit", "quant_type", "double_quant", "compute_dtype"}
    if unknown:
        raise UserError(f"model.quantization: unknown field(s) {', '.join(sorted(unknown))}")
    return {
        "load_in_4bit": True,
        "bnb_4bit_quant_type": quantization.get("quant_type", "nf4"),
        "bnb_4bit_use_double_quant": bool(quantization.get("double_quant", True)),
        "bnb_4bit_compute_dtype": quantization.get("compute_dtype", "bfloat16"),
    }


def _quantization_config(quantization: dict | None):
    if not quantization or not quantization.get("load_in_4bit", True):
        return None
    kwargs = bnb_config_kwargs(quantization)
    import torch

    if not torch.cuda.is_available() or importlib.util.find_spec("bitsandbytes") is None:
        raise UserError("4-bit quantization needs a CUDA GPU and bitsandbytes; none found")
    from transformers import BitsAndBytesConfig

    kwargs["bnb_4bit_compute_dtype"] = torch_dtype(kwargs["bnb_4bit_compute_dtype"])
    return BitsAndBytesConfig(**kwargs)


def _resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise UserError(f"device: {device!r} requested but no CUDA GPU is available")
    if not re.fullmatch(r"cpu|cuda(:\d+)?|mps", device):
        raise UserError(f"device: {device!r} is not cpu, cuda, cuda:<n>, mps or auto")
    return device


def _resolve_hub(name: str, revision: str | None) -> tuple[Path, str]:
    if not revision:
        raise UserError(f"model.revision: {name} must be pinned to a revision (commit hash); got {revision!r}")
    from huggingface_hub import snapshot_download

    def fetch(patterns: list[str]) -> Path:
        try:
            return Path(snapshot_download(name, revision=revision, allow_patterns=patterns))
        except Exception as exc:  # network, auth, unknown revision: one line naming the model
            first = str(exc).splitlines()[0] if str(exc) else ""
            raise UserError(f"model.name: cannot fetch {name} at revision {revision}: "
                            f"{type(exc).__name__}: {first}") from None

    # Weights in safetensors when the repo has them; *.bin only as a fall-back, never both.
    local = fetch(["*.json", "*.safetensors", "*.model", "*.txt", "*.jinja", "*.tiktoken"])
    if not any(local.glob("*.safetensors")):
        local = fetch(["*.bin"])
    return local, local.name


def load_model_and_tokenizer(name: str, revision: str | None, *, dtype: str = "float32", device: str = "cpu",
                             quantization: dict | None = None) -> tuple[Any, Any, dict]:
    """Load (model, tokenizer, info) for the lock's ``model`` block.

    ``info`` = {name, revision, resolved_revision, kind, path, weights_sha256, config_sha256,
    tokenizer_sha256, num_parameters, dtype, quantization}; ``path`` is a local folder that
    ``from_pretrained`` (or ``GRPOTrainer(model=path)``) reads the same weights from.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    dev = _resolve_device(device)
    torch_dt = torch_dtype(dtype)
    qconfig = _quantization_config(quantization)
    if name.startswith("tiny:"):
        folder, kind, resolved = tiny_model_path(name[len("tiny:"):]), "tiny", tiny_key(name[len("tiny:"):])
    elif Path(name).is_dir():
        folder, kind, resolved = Path(name).resolve(), "local", None
    else:
        folder, resolved = _resolve_hub(name, revision)
        kind = "hub"

    weight_files = _weight_files(folder)
    kwargs: dict[str, Any] = {"dtype": torch_dt}
    if qconfig is not None:
        import torch

        if not dev.startswith("cuda"):
            raise UserError(f"device: 4-bit quantization runs on a CUDA device, not {dev!r}")
        kwargs["quantization_config"] = qconfig
        kwargs["device_map"] = {"": torch.cuda.current_device() if dev == "cuda" else dev}
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder)
        model = AutoModelForCausalLM.from_pretrained(folder, **kwargs)
    except (OSError, ValueError) as exc:
        raise UserError(f"model.name: cannot load {name} from {folder}: {str(exc).splitlines()[0]}") from None
    if qconfig is None:
        model = model.to(dev)
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    info = {
        "name": name,
        "revision": revision,
        "resolved_revision": resolved,
        "kind": kind,
        "path": str(folder),
        "weights_sha256": _file_hashes(folder, weight_files),
        "config_sha256": sha256_file(folder / "config.json"),
        "tokenizer_sha256": _file_hashes(folder, _tokenizer_files(folder)),
        "num_parameters": int(sum(p.numel() for p in model.parameters())),
        "dtype": dtype,
        "quantization": bnb_config_kwargs(quantization) if qconfig is not None else None,
    }
    return model, tokenizer, info
