"""Distributed-training strategies: one module per strategy, each the one home of everything the
strategy means (config keys, launcher, SDK distribution, local launch, import, v3 export, rules).

`registry.py` lists them; the rest of sagelaunch asks the registry (`registry.of(config)`) and
never compares a strategy's name. See docs/guide/adding-a-strategy.md.
"""
