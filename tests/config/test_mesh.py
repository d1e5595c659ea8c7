from __future__ import annotations

import pytest

from sagelaunch.plan.mesh import Mesh, mesh_dims, sets_degrees


@pytest.mark.parametrize(
    ("hps", "world", "expected"),
    [
        ({}, 8, Mesh(8, 1, 1, 1)),
        ({"parallel": "fsdp"}, 8, Mesh(1, 8, 1, 1)),
        ({"parallel": "fsdp", "dp_replicate": "2"}, 16, Mesh(2, 8, 1, 1)),
        ({"tensor_parallel_degree": 2, "pipeline_parallel_degree": "2"}, 4, Mesh(1, 1, 2, 2)),
        ({"tensor_parallel_degree": 8, "parallel": '"fsdp"'}, 16, Mesh(1, 2, 1, 8)),
    ],
)
def test_mesh_dims(hps, world, expected):
    assert mesh_dims(hps, world) == expected


@pytest.mark.parametrize(
    ("hps", "world", "mentions"),
    [
        ({"tensor_parallel_degree": 3}, 8, "tensor_parallel_degree 3"),
        ({"pipeline_parallel_degree": 0}, 8, "pipeline_parallel_degree"),
        ({"tensor_parallel_degree": "two"}, 8, "positive integer"),
        ({"dp_replicate": 2}, 8, "parallel: fsdp"),
        ({"dp_replicate": 3, "parallel": "fsdp"}, 8, "does not divide"),
    ],
)
def test_bad_degrees_are_errors(hps, world, mentions):
    errors = mesh_dims(hps, world)
    assert isinstance(errors, list) and mentions in errors[0]


def test_sets_degrees():
    assert sets_degrees({"tensor_parallel_degree": 2}) and not sets_degrees({"lr": 1})
    assert Mesh(2, 8, 1, 1).describe() == "2 × 8 × 1 × 1"
