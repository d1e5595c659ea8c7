"""moto's server on loopback, as tests/aws runs it (test_wheel.py submits to it)."""

from tests.aws.conftest import model_cache, moto, moto_url  # noqa: F401  (fixtures)
