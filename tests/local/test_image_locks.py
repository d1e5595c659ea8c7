"""The images' locks: each image's packages with their dependencies, resolved and committed.

Fast, offline: the locks are read, never resolved again; the relaxation is tested on uv's own
error texts.
"""

from __future__ import annotations

import pytest

from sagelaunch.local import image_locks, image_software
from sagelaunch.local.software import normal_name

IMAGES = image_software.images()


def _ids(image: image_software.Image) -> str:
    return image_locks.lock_path(image).stem


def _of(framework: str) -> list[image_software.Image]:
    return [i for i in IMAGES if i.framework == framework]


def test_every_image_has_a_lock_and_check_passes():
    assert image_locks.check() == []
    assert image_locks.main(["--check"]) == 0
    assert {p.name for p in image_locks.locks_dir().glob("*.lock")} == {
        image_locks.lock_path(i).name for i in IMAGES
    }


def test_the_image_software_check_skips_the_locks_folder(monkeypatch):
    """image_software's --check lists stray files under data/images/, not its subfolders (its
    sources stand in for themselves here: the comparison with them needs their clones)."""
    data = image_software.data_dir()
    assert image_locks.locks_dir().parent == data and image_locks.locks_dir().is_dir()
    stored = {p.name: p.read_text("utf-8") for p in data.iterdir() if p.is_file()}
    monkeypatch.setattr(image_software, "generate", lambda fetch: stored)
    assert image_software.main(["--check"]) == 0


@pytest.mark.parametrize("image", IMAGES, ids=_ids)
def test_each_lock_records_its_source(image):
    head = image_locks.header(image)
    assert set(head.files) == set(image.files)
    assert head.generator.startswith(image_locks.GENERATOR)
    assert head.uv.startswith("uv ")
    assert head.python.startswith("3.")
    assert head.date
    assert image_locks.resolved(image), "the set resolved"


@pytest.mark.parametrize("image", _of("xgboost"), ids=_ids)
def test_xgboost_images_hold_joblib_through_scikit_learn(image):
    held = image_locks.resolved(image)
    assert {"joblib", "numpy", "scikit-learn", "xgboost"} <= set(held)


@pytest.mark.parametrize("image", _of("pytorch"), ids=_ids)
def test_pytorch_images_hold_torch_not_tensorflow(image):
    held = image_locks.resolved(image)
    assert "torch" in held
    assert not {"tensorflow", "tensorflow-cpu"} & set(held)


@pytest.mark.parametrize("image", [i for i in _of("pytorch") if i.kind == "cpu"], ids=_ids)
def test_cpu_pytorch_images_hold_no_cuda_packages(image):
    assert not [n for n in image_locks.resolved(image) if n.startswith("nvidia-")]


@pytest.mark.parametrize("image", _of("tensorflow"), ids=_ids)
def test_tensorflow_images_hold_tensorflow_not_torch(image):
    held = image_locks.resolved(image)
    assert {"tensorflow", "tensorflow-cpu"} & set(held)
    assert "torch" not in held


@pytest.mark.parametrize("image", IMAGES, ids=_ids)
def test_every_index_or_conda_package_is_locked_or_recorded_dropped(image):
    head = image_locks.header(image)
    held = image_locks.resolved(image)
    for key, shipped in image_software.packages(image).items():
        if shipped.origin in ("index", "conda"):
            name = head.renamed.get(key, key)
            assert name in held or key in head.dropped, f"{shipped.requirement}: neither"


@pytest.mark.parametrize("image", IMAGES, ids=_ids)
def test_what_is_locked_keeps_the_image_pin_unless_relaxed(image):
    """An exact pin the image writes is the locked version, unless the header says it was
    relaxed (or dropped)."""
    head = image_locks.header(image)
    held = image_locks.resolved(image)
    for key, shipped in image_software.packages(image).items():
        name, _, version = shipped.requirement.partition("==")
        exact = shipped.origin == "index" and version and not set(version) & set("*,<>!~ ;")
        if exact and key not in head.relaxed and key not in head.dropped:
            assert held[normal_name(name.split("[")[0])] == version, shipped.requirement


def test_resolved_reads_a_lock_text(tmp_path, monkeypatch):
    image = IMAGES[0]
    lock = tmp_path / "locks" / image_locks.lock_path(image).name
    lock.parent.mkdir()
    lock.write_text("# image: x\n# relaxed: numpy (image pins numpy==1: why)\n\nNumPy==2.0\n")
    monkeypatch.setattr(image_software, "data_dir", lambda: tmp_path)
    image_locks.resolved.cache_clear()
    try:
        assert image_locks.resolved(image) == {"numpy": "2.0"}
        assert image_locks.header(image).relaxed == {"numpy": "(image pins numpy==1: why)"}
    finally:
        image_locks.resolved.cache_clear()


def _plan(*requirements: str) -> image_locks.Plan:
    made = image_locks.Plan(IMAGES[0], {}, {})
    for requirement in requirements:
        name = normal_name(image_locks._bare(requirement).split("[")[0])
        made.wanted[name] = made.pins[name] = requirement
    return made


def test_a_pin_without_a_wheel_is_relaxed():
    made = _plan("scikit-learn==0.24.1", "numpy")
    error = (
        "Because scikit-learn==0.24.1 has no usable wheels and you require scikit-learn==0.24.1, "
        "we can conclude that your requirements are unsatisfiable."
    )
    assert image_locks.step(made, error)  # a newer release first
    assert made.wanted == {"scikit-learn": "scikit-learn>=0.24.1", "numpy": "numpy"}
    assert "scikit-learn==0.24.1" in made.relaxed["scikit-learn"]
    error = "Because there is no version of scikit-learn>=0.24.1 and you require scikit-learn"
    assert image_locks.step(made, error)  # then any
    assert made.wanted["scikit-learn"] == "scikit-learn"


def test_a_project_without_any_wheel_is_read_from_its_sdist_at_the_image_pin():
    made = _plan("retrying==1.3.3")
    assert image_locks.step(made, "Because retrying==1.3.3 has no usable wheels and ...")
    assert made.wanted == {"retrying": "retrying>=1.3.3"}
    error = "Because all versions of retrying>=1.3.3 have no usable wheels and"
    assert image_locks.step(made, error)
    assert made.wanted == {"retrying": "retrying==1.3.3"} and made.sdists == {"retrying"}
    assert made.relaxed == {}


def test_a_name_pypi_lacks_is_dropped_and_conflicting_pins_are_relaxed():
    made = _plan("curl", "tensorflow-text==2.14.0", "tensorflow==2.16.1", "tensorflow-io")
    assert image_locks.step(made, "Because curl was not found in the package registry and you")
    assert "curl" in made.dropped and "curl" not in made.wanted
    error = (
        "Because tensorflow-text==2.14.0 depends on tensorflow>=2.14.0,<2.15 and you require "
        "tensorflow==2.16.1, we can conclude that your requirements are unsatisfiable."
    )
    assert image_locks.step(made, error)
    assert set(made.relaxed) == {"tensorflow-text", "tensorflow"}
    assert made.wanted["tensorflow"] == "tensorflow>=2.16.1"
    assert made.wanted["tensorflow-io"] == "tensorflow-io"
    assert not image_locks.step(made, "error: something else entirely")


def test_a_framework_from_a_url_is_pinned_at_its_version():
    shipped = image_software.Shipped(
        "torch",
        "https://example.com/torch-2.4.0%2Bcpu-cp311-cp311-linux_x86_64.whl",
        "url",
    )
    assert image_locks._framework_pin(shipped, "torch") == "torch==2.4.0"
    other = image_software.Shipped("torch", "torch==2.7.1", "index https://download.pytorch.org")
    assert image_locks._framework_pin(other, "torch") == "torch==2.7.1"
