"""AWS access: the only package that imports boto3/botocore.

Everything here is imported lazily by commands, never on the `--help` / `validate` path.
"""
