"""`make test` runs under `--dist loadgroup`: tests marked with one xdist_group share a worker (the
layout suite's 4-process job runs once, not once per worker with the other waiting on its lock).
pytest 9.2 broke that silently for pytest-xdist 3.8; this notices if it breaks again."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.xdist_group("probe")


def test_a_grouped_test_carries_its_group_under_loadgroup(request):
    if not getattr(request.config.option, "loadgroup", False):  # set on xdist workers
        pytest.skip("only meaningful under -n N --dist loadgroup (make test)")
    assert request.node.nodeid.endswith("@probe")
