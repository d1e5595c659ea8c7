"""Metric series of a job or a local run: read (local logs, or CloudWatch through aws/), tabled
and drawn (optional charting extras)."""
