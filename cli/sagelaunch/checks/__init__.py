"""Whether a config can run: everything `validate` checks (the rules, each citing the service or
container fact that makes a job fail; the request and API limits from botocore's model; the
expanded trials of a sweep). Strategies register their rules here (rules/registry.py); it stands
above config/ (what the user wrote), plan/ (what a config becomes) and the strategies."""
