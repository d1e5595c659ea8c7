"""`sagelaunch recommend`: a per-accelerator memory model and a planner that picks DDP, FSDP,
SMP v2 (hybrid shard / tensor parallel) or Neuron torchrun, and how many instances.

Pure Python on purpose (no torch, numpy, sagemaker or boto3), so the command stays on the fast
path: `workload` says what is trained, `memory` what one accelerator holds for a layout,
`steptime` how long its step takes and what a token costs, `layouts` which layouts an instance
type offers, `planner` which one to use and why, `emit` the launch config that runs it, and
`from_hyperparameters` the same figures for a planned train_pytorch.py job.
"""
