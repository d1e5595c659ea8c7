"""A small Hugging Face Trainer job, as the Hugging Face estimator's container runs it.

It reads text files from the train channel (SM_CHANNEL_TRAIN), trains a causal language model
with transformers' Trainer, and saves it to SM_MODEL_DIR, where ``from_pretrained`` loads it. The
model is a tiny GPT-2 built from a config (nothing is downloaded), or the model folder
``--model_name_or_path`` names: give a pretrained model as a channel (``inputs: {model: ...}``,
then ``--model_name_or_path /opt/ml/input/data/model``); a job without internet cannot fetch one
from the Hub. Text becomes token ids byte by byte (ids 0-255, 256 ends each file), so no
tokenizer is downloaded either.

The hyperparameters are sagelaunch's shared vocabulary (--max_steps, --epochs, --batch_size,
--lr, --seed, --checkpoint_every) and the model's size. Under torchrun (distribution:
torch_distributed) every process is one data-parallel replica: Trainer reads torchrun's
variables itself; only the first process saves.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import torch
from transformers import (
    AutoModelForCausalLM,
    GPT2Config,
    GPT2LMHeadModel,
    Trainer,
    TrainingArguments,
)
from transformers.trainer_utils import get_last_checkpoint

END_OF_TEXT = 256  # the id after the 256 byte values


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--max_steps", type=int, default=200, help="optimizer steps (0: run --epochs)")
    add("--epochs", type=float, default=1.0, help="passes over the data when --max_steps is 0")
    add("--batch_size", type=int, default=8, help="samples per process per step")
    add("--lr", type=float, default=5e-4, help="learning rate")
    add("--seed", type=int, default=0, help="seed for weights and data order")
    add("--checkpoint_every", type=int, default=0, help="steps between checkpoints (0: none)")
    add("--log_every", type=int, default=10, help="steps between log lines")
    add("--seq_len", type=int, default=64, help="tokens per sample")
    add("--n_layer", type=int, default=2, help="transformer blocks of the new GPT-2")
    add("--n_embd", type=int, default=64, help="its embedding width")
    add("--n_head", type=int, default=4, help="its attention heads")
    add("--model_name_or_path", default="", help="a model folder to fine-tune instead")
    add("--train", default=os.environ.get("SM_CHANNEL_TRAIN", "data"), help="text files")
    add("--model_dir", default=os.environ.get("SM_MODEL_DIR", "model"), help="the saved model")
    # SageMaker passes every hyperparameter; those this script does not know are left alone.
    args, _ = parser.parse_known_args()
    return args


class TokenBlocks(torch.utils.data.Dataset):
    """Every text file of a folder as byte ids, cut into blocks of ``seq_len`` tokens."""

    def __init__(self, folder: Path, seq_len: int) -> None:
        files = sorted(p for p in folder.rglob("*.txt") if p.is_file())
        if not files:
            raise SystemExit(f"no .txt files in the train channel {folder}")
        ids: list[int] = []
        for path in files:
            ids += [*path.read_bytes(), END_OF_TEXT]
        count = len(ids) // seq_len
        if count == 0:
            raise SystemExit(f"the train channel {folder} holds fewer than {seq_len} tokens")
        self.blocks = torch.tensor(ids[: count * seq_len]).view(count, seq_len)

    def __len__(self) -> int:
        return len(self.blocks)

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        block = self.blocks[index]
        return {"input_ids": block, "labels": block}


def build_model(args: argparse.Namespace) -> GPT2LMHeadModel:
    if args.model_name_or_path:
        return AutoModelForCausalLM.from_pretrained(args.model_name_or_path)
    config = GPT2Config(
        vocab_size=END_OF_TEXT + 1,
        n_positions=args.seq_len,
        n_embd=args.n_embd,
        n_layer=args.n_layer,
        n_head=args.n_head,
        bos_token_id=END_OF_TEXT,
        eos_token_id=END_OF_TEXT,
    )
    return GPT2LMHeadModel(config)


def checkpoint_dir(model_dir: Path) -> Path:
    """SageMaker's checkpoint folder (synced with checkpoint_s3_uri) where the job has one,
    else one under the job's output: a restarted job resumes from what is there."""
    beside = model_dir.parent / "checkpoints"
    output = Path(os.environ.get("SM_OUTPUT_DATA_DIR", model_dir.parent / "output"))
    return beside if beside.is_dir() else output / "checkpoints"


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)
    model = build_model(args)
    checkpoints = checkpoint_dir(Path(args.model_dir))
    training = TrainingArguments(
        output_dir=str(checkpoints),
        max_steps=args.max_steps or -1,
        num_train_epochs=args.epochs,
        per_device_train_batch_size=args.batch_size,
        learning_rate=args.lr,
        seed=args.seed,
        logging_steps=args.log_every,
        save_strategy="steps" if args.checkpoint_every else "no",
        save_steps=args.checkpoint_every or 500,
        use_cpu=not torch.cuda.is_available(),
        report_to=[],
        disable_tqdm=True,  # one log line per --log_every steps, not a progress bar per host
        ddp_find_unused_parameters=False,  # every parameter has a gradient each step
    )
    trainer = Trainer(
        model=model, args=training, train_dataset=TokenBlocks(Path(args.train), args.seq_len)
    )
    resume = get_last_checkpoint(str(checkpoints)) if checkpoints.is_dir() else None
    result = trainer.train(resume_from_checkpoint=resume)
    trainer.save_model(args.model_dir)  # the first process only
    if trainer.is_world_process_zero():
        processes = training.world_size
        print(f"train_loss={result.training_loss:.4f} steps={result.global_step} {processes=}")
        print(f"saved the model to {args.model_dir}")
    leave_process_group()


def leave_process_group() -> None:
    """Under torchrun, wait until every process is done (the first one saves), then leave without
    the interpreter's finalization: on CPU, gloo's threads can make static destructors call
    std::terminate at exit when the other process has already gone (SIGABRT, no Python frame,
    now and then on two hosts), which would fail a job that finished. Everything is written."""
    distributed = torch.distributed
    if not (distributed.is_available() and distributed.is_initialized()):
        return
    distributed.barrier()
    distributed.destroy_process_group()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
