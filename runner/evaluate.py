"""Held-out evaluation of a trained policy: the same prompt code as training, exactly n items.

Two backends, chosen by the lock's ``evaluation.backend``: batched ``transformers``
generation (greedy, or seeded sampling) and vLLM (LoRA merged into the base weights). Any
sampling seed — vLLM's included — is derived from the run seed (README failure 7), so two
seeds never share "random" evaluation draws and one seed always repeats them. A backend that
cannot run here is refused before training starts, in one line.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from prereg.canonical import sha256_text
from prereg.errors import Refusal, UserError
from prereg.study import Evaluation


def derive_seed(run_seed: int, purpose: str) -> int:
    """A 31-bit seed for one purpose, a pure function of the run seed."""
    return int(sha256_text(f"rlprereg:{run_seed}:{purpose}")[:8], 16) & 0x7FFFFFFF


def check_backend(evaluation: Evaluation, device: str) -> None:
    """Refuse a locked evaluation backend this host cannot run (vllm without vllm, CUDA or --device cuda)."""
    backend = evaluation.backend
    if backend == "transformers":
        return
    if backend != "vllm":
        raise Refusal(f"evaluation.backend: unknown backend {backend!r}")
    if importlib.util.find_spec("vllm") is None:
        raise Refusal("evaluation.backend is 'vllm' but vllm is not installed here (pip install 'rlprereg[vllm]' on a GPU host)")
    if device != "cuda":
        raise Refusal("evaluation.backend is 'vllm', which needs --device cuda")
    import torch

    if not torch.cuda.is_available():
        raise Refusal("evaluation.backend is 'vllm' but no CUDA device is visible")


def _encode(tokenizer, prompt):
    if isinstance(prompt, str):
        return tokenizer(text=prompt)["input_ids"]  # as TRL tokenizes a plain-text prompt
    return tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=True)


def _text(prompt) -> str:
    return prompt if isinstance(prompt, str) else json.dumps(prompt, sort_keys=True, ensure_ascii=False)


def generate_transformers(model, tokenizer, prompts: list, *, max_new_tokens: int, batch_size: int,
                          decoding: str = "greedy", temperature: float = 1.0, seed: int = 0) -> list[str]:
    import torch

    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    eos = tokenizer.eos_token_id
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    out: list[str] = []
    if decoding == "sample":
        torch.manual_seed(seed)
    try:
        for start in range(0, len(prompts), batch_size):
            encoded = [_encode(tokenizer, p) for p in prompts[start:start + batch_size]]
            width = max(len(e) for e in encoded)
            ids = torch.tensor([[pad_id] * (width - len(e)) + list(e) for e in encoded], device=device)
            mask = torch.tensor([[0] * (width - len(e)) + [1] * len(e) for e in encoded], device=device)
            kwargs = {"do_sample": False} if decoding == "greedy" else {"do_sample": True, "temperature": temperature}
            with torch.no_grad():
                gen = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=max_new_tokens,
                                     pad_token_id=pad_id, top_k=None, top_p=None, **kwargs)
            for row in gen[:, width:].tolist():
                if eos is not None and eos in row:
                    row = row[:row.index(eos)]
                out.append(tokenizer.decode(row, skip_special_tokens=True))
    finally:
        model.train(was_training)
    return out


def generate_vllm(model, tokenizer, prompts: list, *, max_new_tokens: int, decoding: str, temperature: float,
                  seed: int, work_dir: Path) -> list[str]:
    """Merge the LoRA adapter, hand the weights to vLLM, generate with the derived seed."""
    import vllm

    merged = model.merge_and_unload() if hasattr(model, "merge_and_unload") else model
    work_dir = Path(work_dir)
    merged.save_pretrained(work_dir)
    tokenizer.save_pretrained(work_dir)
    llm = vllm.LLM(model=str(work_dir), seed=seed, enforce_eager=True)
    params = vllm.SamplingParams(temperature=0.0 if decoding == "greedy" else temperature,
                                 max_tokens=max_new_tokens, seed=seed)
    texts = [p if isinstance(p, str) else tokenizer.apply_chat_template(p, add_generation_prompt=True, tokenize=False)
             for p in prompts]
    return [o.outputs[0].text for o in llm.generate(texts, params)]


def evaluate_heldout(model, tokenizer, task, evaluation: Evaluation, *, run_seed: int,
                     work_dir: Path | None = None) -> list[dict]:
    """One trace row per held-out item, in item order, scored with the locked protocol
    (``lock.study.evaluation``: decoding, temperature, backend, batch size, held-out n)."""
    heldout_n = evaluation.heldout_n
    items = task.heldout_items(heldout_n)
    if len(items) != heldout_n:
        raise UserError(f"dataset.heldout_n: locked {heldout_n} items but the held-out split yields {len(items)}")
    prompts = [task.build_prompt(it) for it in items]
    decoding, temperature = evaluation.decoding, evaluation.sampling_temperature
    seed = derive_seed(run_seed, "heldout")
    if evaluation.backend == "vllm":
        completions = generate_vllm(model, tokenizer, prompts, max_new_tokens=evaluation.max_new_tokens,
                                    decoding=decoding, temperature=temperature, seed=seed,
                                    work_dir=work_dir or Path("vllm_merged"))
    else:
        completions = generate_transformers(model, tokenizer, prompts, max_new_tokens=evaluation.max_new_tokens,
                                            batch_size=evaluation.batch_size, decoding=decoding,
                                            temperature=temperature, seed=seed)
    rows = []
    for i, (item, prompt, completion) in enumerate(zip(items, prompts, completions, strict=True)):
        prediction = task.parse(completion)
        rows.append({
            "index": i, "item_id": str(item["id"]), "prompt_sha256": sha256_text(_text(prompt)),
            "completion_sha256": sha256_text(completion), "prediction": _json_value(prediction),
            "target": _json_value(item.get("answer")), "correct": bool(task.correct(completion, item)),
            "reward": float(task.reward(completion, item)),
        })
        if hasattr(task, "item_record"):  # task-specific per-item fields (e.g. connections: groups, strata)
            extra = task.item_record(completion, item)
            rows[-1].update({k: v for k, v in extra.items() if k not in rows[-1]})
    return rows


def _json_value(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    return str(v)
