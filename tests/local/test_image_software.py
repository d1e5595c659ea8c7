"""The images' software as data: each stored file an excerpt of a published image definition with
its source, parsed at run time into the packages the image ships; the job's image chosen by
framework, version and instance type; what a script imports asked of that image.

Fast: no install, no network. The byte-for-byte comparison with the sources themselves runs where
clones of them are named (SAGELAUNCH_IMAGE_SOURCES="owner/name=GIT_DIR,..."; the generator's
--check), and is skipped elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import re

import pytest

from sagelaunch.errors import UsageError
from sagelaunch.local import container_packages, dockerfile, image_software, software, toml_lite
from sagelaunch.local.image_software import Shipped

SOURCES = {source.name: source for _, sources in image_software.sources() for source in sources}
IMAGES = image_software.images()
FILES = sorted({name for image in IMAGES for name in image.files})


def _image(framework: str, version: str, kind: str) -> image_software.Image:
    return next(i for i in IMAGES if (i.framework, i.version, i.kind) == (framework, version, kind))


def _packages(framework: str, version: str, kind: str) -> dict[str, Shipped]:
    return image_software.packages(_image(framework, version, kind))


# --- the stored files: sources recorded, verbatim -------------------------------------------


def test_the_stored_files_are_the_generators_and_only_those():
    written = {p.name for p in image_software.data_dir().iterdir() if p.is_file()}
    assert written == set(SOURCES) | {image_software.INDEX}
    assert set(FILES) == set(SOURCES)


@pytest.mark.parametrize("name", FILES)
def test_each_stored_file_records_its_source(name):
    fields, body = image_software.stored(name)
    source = SOURCES[name]
    assert (fields["repo"], fields["path"], fields["commit"]) == (
        source.repo,
        source.path,
        source.commit,
    )
    assert re.fullmatch(r"[0-9a-f]{40}", fields["commit"])
    assert re.fullmatch(r"[0-9a-f]{64}", fields["sha256"])
    assert fields["source"] == (
        f"https://github.com/{source.repo}/blob/{source.commit}/{source.path}"
    )
    assert body.strip()


@pytest.mark.parametrize("name", FILES)
def test_each_stored_file_is_what_the_generator_keeps_of_its_source(name):
    """A requirements.txt or pyproject.toml is the whole file: its sha256 is the source's. A
    Dockerfile's excerpt is what the extraction keeps of it, and keeps all of itself (the
    extraction drops only whole instructions and comment lines: a line typed into the excerpt,
    or one cut short, would not survive it unchanged unless it were a kept instruction)."""
    fields, body = image_software.stored(name)
    if SOURCES[name].whole:
        assert hashlib.sha256(body.encode()).hexdigest() == fields["sha256"]
    else:
        assert dockerfile.excerpt(body) == body
        keywords = {ins.keyword for ins in dockerfile.instructions(body)}
        assert keywords <= {"FROM", "ARG", "ENV", "RUN", "COPY"}


def test_the_index_is_the_generators():
    """index.json lists the images as the generator's sources say (no image typed in by hand)."""
    files = image_software.generate(lambda source: image_software.stored(source.name)[1])
    index = json.loads((image_software.data_dir() / image_software.INDEX).read_text())
    assert json.loads(files[image_software.INDEX]) == index
    for name in FILES:  # and a whole file renders back to itself, header and all
        if SOURCES[name].whole:
            assert files[name] == (image_software.data_dir() / name).read_text()


def test_the_stored_files_match_their_sources_where_clones_are_named():
    named = os.environ.get("SAGELAUNCH_IMAGE_SOURCES")
    if not named:
        pytest.skip("SAGELAUNCH_IMAGE_SOURCES names no clones of the images' repositories")
    args = [f"--git={item}" for item in named.split(",")]
    assert image_software.main(["--check", *args]) == 0


# --- the parser, on every stored file ---------------------------------------------------------


@pytest.mark.parametrize("image", IMAGES, ids=lambda i: f"{i.framework}-{i.version}-{i.kind}")
def test_every_image_parses_to_what_its_files_install(image):
    shipped = image_software.packages(image)
    assert len(shipped) >= 20
    for name in image.files:  # each Dockerfile, alone, installs something
        if name.endswith("Dockerfile"):

            def read(path, image=image):
                wanted = path.rsplit("/", 1)[-1]
                named = [n for n in image.files if n.endswith("." + wanted)]
                return image_software.body(named[0]) if named else None

            assert dockerfile.dockerfile_packages(image_software.body(name), read)


@pytest.mark.parametrize("image", [i for i in IMAGES if i.framework == "pytorch"], ids=str)
def test_the_pytorch_images_that_install_mpi4py_ship_it(image):
    """Every PyTorch image pip-installs (or conda-installs) mpi4py, except the GPU images of 2.11
    on, whose pyproject.toml lists none."""
    text = "".join(image_software.body(n) for n in image.files)
    uncommented = re.sub(r"^\s*#.*$", "", text, flags=re.MULTILINE)
    listed = re.search(r"(?<![\w-])mpi4py(?![\w-])", uncommented) is not None
    assert listed == (not (image.kind == "gpu" and image.version in ("2.11", "2.12", "2.13")))
    assert ("mpi4py" in image_software.packages(image)) == listed


def test_the_tensorflow_images_ship_tensorflow_io_and_datasets():
    for image in (i for i in IMAGES if i.framework == "tensorflow"):
        shipped = image_software.packages(image)
        assert {"tensorflow-io", "tensorflow-datasets", "mpi4py"} <= shipped.keys(), image
    assert _packages("tensorflow", "2.14", "cpu")["tensorflow-io"].requirement == (
        "tensorflow-io>=0.33.0,<0.34.0"
    )
    assert _packages("tensorflow", "2.19", "cpu")["tensorflow-io"].requirement == (
        "tensorflow-io==0.37.*"
    )


def test_the_xgboost_images_ship_their_requirements_txt():
    """The final Dockerfile's `pip install -r /requirements.txt`, read from the stored file."""
    old, new = _packages("xgboost", "1.7-1", "any"), _packages("xgboost", "3.0-5", "any")
    assert old["scikit-learn"].requirement == "scikit-learn==0.24.1"
    assert new["scikit-learn"].requirement == "scikit-learn==1.8.0"
    assert new["dask"].requirement == "dask[dataframe]==2026.1.1"
    assert new["sagemaker-containers"].requirement == "sagemaker-containers==2.8.6.post2"
    # the base Dockerfile's own installs: conda's pyarrow=${PYARROW_VERSION}, pip's xgboost
    assert new["pyarrow"].requirement == "pyarrow==22.0.0"
    assert old["pyarrow"] == Shipped("pyarrow", "pyarrow==14.0.1.*", "conda")
    assert new["xgboost"].requirement == "xgboost==3.0.5"
    assert new["sagemaker-debugger"].origin == "vcs"  # git+https://...sagemaker-debugger.git
    assert new["sagemaker-xgboost-container"].origin == "path"  # its own wheel
    assert "typing" not in new  # `pip uninstall -y typing`


def test_args_envs_stages_and_the_shell_read_as_docker_and_the_shell_read_them():
    cpu, gpu = _packages("pytorch", "2.8", "cpu"), _packages("pytorch", "2.8", "gpu")
    # ARG TORCHTNT_VERSION=0.2.4 at the top, redeclared in the `common` stage
    assert cpu["torchtnt"].requirement == "torchtnt==0.2.4"
    assert cpu["torchvision"] == Shipped(
        "torchvision", "torchvision==0.23.0", "index https://download.pytorch.org/whl/cpu"
    )
    assert gpu["torchvision"].origin == "index https://download.pytorch.org/whl/cu129"
    # unquoted `jinja2>=3.1.6` is `jinja2` with its output sent to a file named `=3.1.6`
    assert cpu["jinja2"].requirement == "jinja2"
    assert "dataclasses" not in cpu  # `pip uninstall -y dataclasses`
    assert cpu["opencv-python"].requirement == "opencv-python==4.11.0.86"
    # the `sagemaker` stage's extras; what only the `ec2` stage runs (oss compliance) is not read
    assert {"pandas", "scikit-learn", "seaborn", "sagemaker-training"} <= cpu.keys()
    # GPU builds: flash-attn against the image's torch, TransformerEngine from git
    assert _packages("pytorch", "2.7", "gpu")["flash-attn"].origin == "build"
    assert gpu["transformerengine"].origin == "vcs"
    # conda's `pytorch=${PYTORCH_VERSION}` (2.3), as PEP 440 reads conda's `=`
    assert _packages("pytorch", "2.3", "cpu")["pytorch"] == Shipped(
        "pytorch", "pytorch==2.3.0.*", "conda"
    )
    # TensorFlow: `${PIP} uninstall -y tensorflow tensorflow-gpu`, then the wheel by ${TF_URL}
    tf = _packages("tensorflow", "2.19", "cpu")
    assert tf["tensorflow-cpu"].origin == "url" and "tensorflow" not in tf
    assert tf["pyyaml"].origin == "build"  # "pyyaml<6" --no-build-isolation


def test_the_uv_images_read_their_pyproject_and_its_sagemaker_extra():
    """PyTorch 2.11 on and TensorFlow 2.21: `uv sync` in builder-base (copied into the SageMaker
    stage's base) and `uv sync --extra sagemaker` in the SageMaker stage."""
    cpu = _packages("pytorch", "2.13", "cpu")
    assert cpu["deepspeed"].requirement == "deepspeed==0.19.2"  # dependencies
    assert cpu["shap"].requirement == "shap"  # the sagemaker extra
    assert cpu["torchaudio"] == Shipped(
        "torchaudio", "torchaudio==2.11.0", "index https://download.pytorch.org/whl/cpu"
    )  # [tool.uv.sources]
    tf = _packages("tensorflow", "2.21", "cpu")
    assert tf["tensorflow-io"].requirement == "tensorflow-io==0.37.*"
    assert tf["torch"].origin == "index https://download.pytorch.org/whl/cpu"


def test_the_toml_reader_reads_the_stored_pyprojects_as_tomllib_does():
    tomllib = pytest.importorskip("tomllib")
    for name in FILES:
        if name.endswith(".toml"):
            body = image_software.body(name)
            assert toml_lite.toml(body) == tomllib.loads(body), name


SYNTHETIC = """\
ARG PIP=pip3
ARG LIB_VERSION=1.2
FROM base AS builder
RUN ${PIP} install --no-cache-dir built-here
FROM ubuntu AS common
ARG LIB_VERSION
ENV EXTRA=extra-pkg
RUN pip install \\
    # a comment line inside the instruction
    lib==${LIB_VERSION} \\<BLANK>
    "${EXTRA}" ${UNSET:-fallback-pkg} \\
 && pip uninstall -y gone \\
 && echo done > /tmp/log
FROM common AS ec2
RUN pip install only-on-ec2
FROM common AS sagemaker
COPY --from=builder /opt/venv /opt/venv
COPY requirements.txt /requirements.txt
RUN python3 -m pip install -r /requirements.txt gone
""".replace("<BLANK>", " ")  # a blank after the backslash still continues the line


def test_a_dockerfile_reads_as_its_sagemaker_stage_builds():
    """Continuations (a blank after the backslash too), comment lines inside one, ARG defaults
    from before the first FROM, ENV, ${VAR:-default}, the stages the SageMaker stage builds on
    and copies from (not ec2), -r, uninstall, and a later install again."""

    def read(path):
        return "# pinned\nfrom-file==3\n" if path.endswith("requirements.txt") else None

    actions = dockerfile.dockerfile_packages(SYNTHETIC, read)
    assert [(a, s.requirement) for a, s in actions] == [
        ("install", "built-here"),
        ("install", "lib==1.2"),
        ("install", "extra-pkg"),
        ("install", "fallback-pkg"),
        ("uninstall", "gone"),
        ("install", "gone"),
        ("install", "from-file==3"),
    ]
    kept = dockerfile.excerpt(SYNTHETIC)
    assert "only-on-ec2" in kept and "echo done" in kept  # whole instructions, verbatim
    assert dockerfile.excerpt(kept) == kept


# --- the job's image ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("framework", "version", "instance", "expected"),
    [
        ("pytorch", "2.8", "ml.c5.xlarge", ("2.8", "cpu")),
        ("pytorch", "2.8.0", "ml.g5.xlarge", ("2.8", "gpu")),
        ("pytorch", "2.13.0", "ml.p4d.24xlarge", ("2.13", "gpu")),
        ("pytorch", "2.10", "local_gpu", ("2.10", "gpu")),
        ("tensorflow", "2.19.0", "local", ("2.19", "cpu")),
        ("tensorflow", "2.16", "ml.p3.2xlarge", ("2.16", "gpu")),
        ("xgboost", "1.7-1", "ml.m5.xlarge", ("1.7-1", "any")),
        ("xgboost", "3.0-5", "ml.g4dn.xlarge", ("3.0-5", "any")),
        ("pytorch", None, None, ("2.13", "cpu")),  # no version: the newest, CPU
    ],
)
def test_the_image_is_the_jobs_by_version_and_instance_type(framework, version, instance, expected):
    choice = image_software.choose(framework, version, instance)
    assert choice is not None and choice.note is None
    assert (choice.image.version, choice.image.kind) == expected


@pytest.mark.parametrize(
    ("framework", "version", "expected", "said"),
    [
        ("tensorflow", "2.17.0", "2.16", "nearest older one stored"),
        ("tensorflow", "2.15", "2.14", "nearest older one stored"),
        ("pytorch", "2.2.0", "2.3", "the oldest stored"),
        ("pytorch", "2.14", "2.13", "nearest older one stored"),
        ("xgboost", "1.5-1", "1.7-1", "the oldest stored"),
        ("xgboost", "2.0-1", "1.7-1", "nearest older one stored"),
    ],
)
def test_a_version_not_stored_takes_the_nearest_older_with_a_note(
    framework, version, expected, said
):
    choice = image_software.choose(framework, version, "ml.c5.xlarge")
    assert choice is not None and choice.image.version == expected
    assert choice.note and said in choice.note and version in choice.note


def test_a_trainium_job_takes_the_cpu_image_with_a_note():
    choice = image_software.choose("pytorch", "2.8.0", "ml.trn1.2xlarge")
    assert choice is not None and choice.image.kind == "cpu"
    assert choice.note and "Neuron" in choice.note
    assert image_software.choose("huggingface", "4.0", "ml.c5.xlarge") is None


# --- what a script's imports ask of its image ---------------------------------------------------


@pytest.fixture
def nothing_installed(monkeypatch):
    """Every import the scripts make counts as missing from this venv."""
    monkeypatch.setattr(container_packages, "_importable", lambda module: False)


def _script(tmp_path, *modules):
    (tmp_path / "train.py").write_text("".join(f"import {m}\n" for m in modules))
    return tmp_path


def pins(framework, code, version, instance_type, say=None):
    """What the overlay installs for ``code`` on the job's image, as a local run chooses it."""
    choice = image_software.choose(framework, version, instance_type)
    return container_packages.missing_pins(choice, code, say)


HUGGING_FACE = [image for image in image_software.images() if image.framework == "huggingface"]


@pytest.mark.parametrize("image", HUGGING_FACE, ids=lambda image: image.version)
def test_transformers_comes_without_its_extras_and_with_the_images_accelerate(
    image, tmp_path, nothing_installed, monkeypatch
):
    """The Hugging Face DLCs install transformers with extras (vision, timm, ...: the index's
    torchvision, which this torch cannot load): the overlay installs transformers alone, at the
    image's version, and the image's accelerate, which Trainer imports (the script does not)."""
    monkeypatch.setattr(container_packages, "_installed", lambda name: None)
    packages = image_software.packages(image)
    found = pins("huggingface", _script(tmp_path, "transformers"), image.version, "ml.g5.xlarge")
    version = packages["transformers"].requirement.rsplit("==", 1)[1]
    assert "[" in packages["transformers"].requirement
    assert found == [f"transformers=={version}", packages["accelerate"].requirement]


def test_mpi4py_and_sklearn_get_the_requirement_of_the_jobs_image(tmp_path, nothing_installed):
    code = _script(tmp_path, "mpi4py", "sklearn")
    assert pins("pytorch", code, "2.8.0", "ml.c5.xlarge") == ["mpi4py", "scikit-learn"]
    assert pins("pytorch", code, "2.13", "ml.p4d.24xlarge") == ["scikit-learn"]  # no mpi4py
    assert pins("xgboost", code, "1.7-1", "ml.m5.xlarge") == ["scikit-learn==0.24.1"]
    assert pins("xgboost", code, "3.0-5", "ml.g4dn.xlarge") == ["scikit-learn==1.8.0"]
    assert pins("tensorflow", code, "2.21.0", "ml.c5.xlarge") == ["mpi4py", "scikit-learn"]
    assert pins("tensorflow", code, "2.19.0", "ml.c5.xlarge") == ["mpi4py"]  # no scikit-learn


def test_cpu_and_gpu_images_differ_where_their_dockerfiles_do(tmp_path, nothing_installed):
    code = _script(tmp_path, "cv2", "tensorflow_io", "PIL", "absl", "yaml")
    cpu = pins("tensorflow", code, "2.19", "ml.c5.xlarge")
    gpu = pins("tensorflow", code, "2.19", "ml.p3.2xlarge")
    assert cpu == ["Pillow", "absl-py", "opencv-python==4.12.0.88", "tensorflow-io==0.37.*"]
    assert gpu == ["Pillow", "absl-py", "opencv-python==4.11.0.86", "tensorflow-io==0.37.*"]


def test_what_no_index_install_gives_is_never_asked(tmp_path, nothing_installed):
    """Built in the image (flash-attn), from git (TransformerEngine), a framework (torch in the
    TensorFlow image, tensorflow in any), what pins one (tensorflow_text), the XGBoost container's
    own libraries (sagelaunch's stand-ins), the code folder's own modules."""
    code = _script(tmp_path, "flash_attn", "transformer_engine", "tensorflow", "shap")
    (tmp_path / "shap.py").write_text("")  # the code's own module named like a shipped package
    assert pins("pytorch", code, "2.7", "ml.p4d.24xlarge") == []
    code = _script(tmp_path, "torch", "tensorflow_text", "official", "tensorflow")
    assert pins("tensorflow", code, "2.19", "ml.c5.xlarge") == []
    assert pins("tensorflow", code, "2.21", "ml.c5.xlarge") == []
    code = _script(tmp_path, "sagemaker_containers", "sagemaker_xgboost_container", "xgboost")
    assert pins("xgboost", code, "3.0-5", "ml.m5.xlarge") == []


def test_a_note_says_which_image_stands_for_a_version_not_stored(tmp_path, nothing_installed):
    said: list[str] = []
    code = _script(tmp_path, "tensorflow_io")
    found = pins("tensorflow", code, "2.17.0", "ml.c5.xlarge", said.append)
    assert found == ["tensorflow-io==0.37.*"]
    assert said and "tensorflow 2.16 CPU image" in said[0]
    said.clear()
    pins("tensorflow", code, "2.19.0", "ml.c5.xlarge", said.append)
    assert said == []


def test_torchvision_follows_this_machines_torch_and_refuses_a_local_build(
    tmp_path, monkeypatch, nothing_installed
):
    code = _script(tmp_path, "torchvision", "torchaudio")
    monkeypatch.setattr(software, "installed_framework", lambda framework: "2.8.0")
    found = pins("pytorch", code, "2.8.0", "ml.c5.xlarge")
    assert found == ["torchaudio==2.8.*", "torchvision==0.23.*"]
    monkeypatch.setattr(software, "installed_framework", lambda framework: "2.13.0+cpu")
    with pytest.raises(UsageError, match=r"torchaudio, which the PyTorch container ships"):
        pins("pytorch", code, "2.8.0", "ml.c5.xlarge")


def test_an_installed_distributions_own_top_level_names_map_imports():
    """PyYAML's metadata says it provides _yaml too (no table says so)."""
    pytest.importorskip("yaml")
    offered = {"pyyaml": Shipped("PyYAML", "PyYAML", "index")}
    assert container_packages._provider("_yaml", offered) == offered["pyyaml"]
    assert container_packages._provider("not_a_module", offered) is None
