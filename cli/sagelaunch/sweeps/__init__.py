"""`sagelaunch sweep`: a set of trials planned, run and ranked, on SageMaker or here.

planning.py plans every trial (also `--dry-run`); scheduler.py runs them on SageMaker, its roles
in their own modules (pacing.py: how often to look; slots.py: max_parallel and quota refusals;
trial_jobs.py: creating, attaching to and following a trial's jobs; failover.py: a trial's next
attempt; record.py: what a job's description and a failover write into the trial's row);
local.py runs them here; results.py ranks them, writes the results file and turns them into the
exit code. The sweep's schema (`config/sweep.py`) and trial expansion (`checks/trials.py`) are
the config's, in config/: `validate` checks them without this room.
"""
