"""A job imports what its framework image holds, not the rest of sagelaunch's venv
(job_packages.py): held for every image definition shipped, and through real runs."""

from __future__ import annotations

import importlib.util

import pytest

from sagelaunch.local import image_software, job_packages
from tests.local.conftest import pytorch_config, run_local

IMAGES = image_software.images()
INSTALLED = job_packages._installed()
OTHER_FRAMEWORKS = {  # distributions of other frameworks (module name = distribution name)
    "pytorch": {"tensorflow", "xgboost"},
    "tensorflow": {"torch", "xgboost", "deepspeed"},
    "xgboost": {"torch", "tensorflow", "deepspeed"},
}


def _hidden(image: image_software.Image) -> set[str]:
    roots = [*job_packages._framework_roots(image.base_framework), *job_packages.image_names(image)]
    return set(job_packages.hidden_modules(job_packages.visible(roots, INSTALLED), INSTALLED))


@pytest.mark.parametrize("image", IMAGES, ids=lambda image: image.label)
def test_a_job_sees_its_images_packages_and_nothing_else_of_this_venv(image):
    hidden = _hidden(image)
    for name in job_packages.image_names(image):  # what the image holds and this venv has
        if name in INSTALLED:
            modules = job_packages.container_packages.top_level_modules(name)
            assert not modules & hidden, f"{image.label} holds {name}, hidden: {modules & hidden}"
    assert "sagelaunch" in hidden  # the tool itself is in no image
    # Another framework is hidden unless the image's definition holds it (TensorFlow 2.21's
    # pyproject.toml installs torch from PyTorch's CPU index, and so its jobs see torch).
    held = set(job_packages.image_names(image))
    for other in OTHER_FRAMEWORKS[image.base_framework]:
        if importlib.util.find_spec(other):
            assert (other in hidden) == (other not in held), f"{image.label}: {other}"
    own = {"pytorch": "torch", "tensorflow": "tensorflow", "xgboost": "xgboost"}
    assert own[image.base_framework] not in hidden


def test_joblib_is_seen_through_the_images_resolved_packages():
    """The XGBoost 1.7 image's definition never names joblib; it holds scikit-learn, which
    requires it, and so its resolved lock has it: a job there sees joblib."""
    image = next(image for image in IMAGES if image.label == "xgboost 1.7-1 image")
    assert "joblib" not in image_software.packages(image)
    assert "scikit-learn" in image_software.packages(image)
    assert "joblib" in job_packages.image_names(image)
    assert "joblib" not in _hidden(image)


PROBE = """\
import importlib.util, sys
for name in sys.argv[1:]:
    found = importlib.util.find_spec(name) is not None
    try:
        __import__(name)
        imported = "imported"
    except ModuleNotFoundError as error:
        imported = str(error)
    print(f"{name}: find_spec {found}, {imported}", flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("framework", "version", "seen", "unseen"),
    [
        ("pytorch", "2.8.0", ["torch", "numpy"], ["tensorflow", "sagelaunch", "xgboost"]),
        ("xgboost", "1.7-1", ["xgboost", "joblib"], ["torch", "tensorflow"]),
    ],
)
def test_a_runs_script_imports_what_its_image_holds(
    write_config, tmp_path, framework, version, seen, unseen
):
    config = write_config(
        pytorch_config(
            framework=framework,
            framework_version=version,
            entry_point="probe.py",
            source_dir="code",
            compute={"instance_type": "ml.m5.xlarge", "instance_count": 1},
            distribution={"strategy": "none"},
            local={"hosts": 1},
        ),
        code={"probe.py": PROBE.replace("sys.argv[1:]", repr([*seen, *unseen]))},
    )
    done = run_local(config, "--workdir", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr[-3000:]
    log = (tmp_path / "run" / "logs" / "algo-1.log").read_text()
    for name in seen:
        assert f"{name}: find_spec True, imported" in log, log
    for name in unseen:
        assert f"{name}: find_spec False, No module named '{name}'" in log, log


KERAS_2_SCRIPT = """\
import os
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
model.compile(optimizer="sgd", loss="mse")
model.save(os.path.join(os.environ["SM_MODEL_DIR"], "000000001"))  # Keras 2: a SavedModel
print("tf.keras is", tf.keras.__name__.split(".")[0], flush=True)
"""


@pytest.mark.slow
def test_an_image_with_keras_2_gets_keras_2(write_config, tmp_path):
    """TensorFlow 2.14's image had Keras 2 in tf.keras; this machine's TensorFlow has Keras 3,
    where ``model.save(folder)`` is refused. The job gets tf-keras with TF_USE_LEGACY_KERAS=1,
    TensorFlow's own route, and saves its SavedModel as it did (two real notebook scripts do)."""
    config = write_config(
        pytorch_config(
            framework="tensorflow",
            framework_version="2.14.1",
            entry_point="save.py",
            source_dir="code",
            compute={"instance_type": "ml.m5.xlarge", "instance_count": 1},
            distribution={"strategy": "none"},
            local={"hosts": 1},
        ),
        code={"save.py": KERAS_2_SCRIPT},
    )
    done = run_local(config, "--workdir", str(tmp_path / "run"), "--keep", timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "TF_USE_LEGACY_KERAS=1" in done.stderr
    assert "tf.keras is tf_keras" in (tmp_path / "run" / "logs" / "algo-1.log").read_text()
    assert (tmp_path / "run" / "algo-1" / "model" / "000000001" / "saved_model.pb").is_file()


def test_the_hidden_file_is_keyed_on_the_installed_distributions_folders(tmp_path, monkeypatch):
    """The cached hidden file is found without parsing every METADATA, and an install (a new
    dist-info folder on the path) makes a new one, which shows the new distribution hidden."""
    import sys

    from sagelaunch.caches import CACHE_DIR_ENV

    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    image = next(i for i in IMAGES if i.framework == "pytorch")
    code = tmp_path / "code"
    code.mkdir()
    before = job_packages._cached_hidden_file("pytorch", image, code)
    assert job_packages._cached_hidden_file("pytorch", image, code) == before
    site = tmp_path / "site"
    (site / "freshly_installed-1.0.dist-info").mkdir(parents=True)
    (site / "freshly_installed-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: freshly-installed\nVersion: 1.0\n"
    )
    (site / "freshly_installed.py").write_text("")
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    assert any(
        p.endswith("freshly_installed-1.0.dist-info") for p in job_packages._metadata_folders()
    )
    after = job_packages._cached_hidden_file("pytorch", image, code)
    assert after != before
    assert "freshly-installed" in after.read_text().partition(job_packages.DISTRIBUTIONS)[2].split()
