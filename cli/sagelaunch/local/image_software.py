"""The training images' software, as data: what each SageMaker framework image installs, read from
the images' own published definitions.

Each file under data/images/ is a verbatim excerpt of one published file (a Dockerfile of the AWS
Deep Learning Containers or of the XGBoost container, the XGBoost container's requirements.txt, a
DLC image's pyproject.toml), its source (repository, path, commit, sha256 of the whole file) in
its header; data/images/index.json says which files make each image (framework, version, CPU or
GPU). Of a Dockerfile the excerpt keeps the instructions that decide what Python packages the
image holds (FROM, ARG, ENV, the RUN instructions that run pip, uv or conda, and COPY of a
requirements file or from another stage), each with all its lines; a requirements.txt or
pyproject.toml is kept whole. Nothing here is typed by hand: the generator writes them all,

    python -m sagelaunch.local.image_software [--git OWNER/NAME=GIT_DIR ...] [--check]

reading each source at its recorded commit (from a local clone given with --git, else from
raw.githubusercontent.com), and --check says whether the stored files are still what it writes.

At run time (no network, a few milliseconds) the chosen image's files are parsed (dockerfile.py;
a pyproject.toml by toml_lite.py): the build
stages that make the SageMaker image (the `sagemaker` stage, else the last one, the stages it
builds on and those it copies from), their ARG and ENV values (`torchdata==${TORCHDATA_VERSION}`
reads as the Dockerfile pins it), each pip, uv or conda install and uninstall in order, a
`-r requirements.txt` and a `uv sync --extra sagemaker` read from the image's own files. Each
package keeps the requirement the image writes and where it came from: the package index, conda,
a URL, a VCS, a local path or built in the image (`--no-build-isolation`, against the image's own
torch and CUDA).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from sagelaunch.local.dockerfile import Shipped, dockerfile_packages, excerpt
from sagelaunch.local.software import normal_name

__all__ = ["Shipped"]  # what an image ships, as dockerfile.py reads it

GENERATOR = "python -m sagelaunch.local.image_software"
INDEX = "index.json"
HUGGINGFACE = "huggingface"


# ---------------------------------------------------------------------------------------------
# What an image ships
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Image:
    """One training image: a framework's version, for CPU or GPU instances (XGBoost: either)."""

    framework: str
    version: str
    kind: str  # cpu, gpu, or any (the XGBoost container is one image for both)
    files: tuple[str, ...]  # under data/images/: the definitions, in build order

    @property
    def label(self) -> str:
        kind = "" if self.kind == "any" else f" {self.kind.upper()}"
        name = "Hugging Face transformers" if self.framework == HUGGINGFACE else self.framework
        return f"{name} {self.version}{kind} image"

    @property
    def base_framework(self) -> str:
        """The framework the image runs: a Hugging Face image is built FROM the PyTorch one."""
        return "pytorch" if self.framework == HUGGINGFACE else self.framework


@dataclass(frozen=True)
class Choice:
    image: Image
    note: str | None  # why this image stands for the job's, where it is not the job's own


def data_dir() -> Path:
    """data/images/ of the installed package."""
    return Path(str(resources.files("sagelaunch").joinpath("data").joinpath("images")))


@cache
def images() -> tuple[Image, ...]:
    """Every stored image, as index.json lists them."""
    index = json.loads((data_dir() / INDEX).read_text("utf-8"))
    return tuple(
        Image(entry["framework"], entry["version"], entry["kind"], tuple(entry["files"]))
        for entry in index["images"]
    )


@cache
def packages(image: Image) -> dict[str, Shipped]:
    """What ``image`` installs and keeps, by normalised distribution name."""
    found: dict[str, Shipped] = {}

    def read(path: str) -> str | None:
        """One of the image's files by the name a Dockerfile gives it: `-r /requirements.txt`
        reads xgboost-3.0-5.requirements.txt, `uv sync` pytorch-2.13-cpu.pyproject.toml."""
        wanted = Path(path).name
        named = [n for n in image.files if n == wanted or n.endswith("." + wanted)]
        return body(named[0]) if named else None

    for name in image.files:
        if name.endswith("Dockerfile"):
            for action, shipped in dockerfile_packages(body(name), read):
                key = normal_name(shipped.name)
                if action == "uninstall":
                    found.pop(key, None)
                else:
                    found[key] = shipped
    return found


def choose(
    framework: str, framework_version: str | None, instance_type: str | None
) -> Choice | None:
    """The stored image for a job: its framework, its framework_version (2.8 and 2.8.0 alike; the
    nearest older stored version, with a note, where that one is not stored) and CPU or GPU by its
    instance type. None where no image of the framework is stored."""
    kind, note = _kind(instance_type)
    stored = [i for i in images() if i.framework == framework and i.kind in (kind, "any")]
    if not stored:
        return None
    stored.sort(key=lambda i: _version_key(i.version))
    if framework_version is None:
        return Choice(stored[-1], note)
    wanted = _version_key(framework_version)
    if len(wanted) < 2:  # not a version this compares: the newest image
        return Choice(stored[-1], note)
    exact = [i for i in stored if _version_key(i.version) == wanted]
    if exact:
        return Choice(exact[-1], note)
    older = [i for i in stored if _version_key(i.version) < wanted]
    image = older[-1] if older else stored[0]
    which = "the nearest older one stored" if older else "the oldest stored"
    why = (
        f"the {framework} {framework_version} image's packages are not stored with sagelaunch: "
        f"those of the {image.label} ({which}) stand for them"
    )
    return Choice(image, f"{note}; {why}" if note else why)


def _version_key(version: str) -> tuple[int, ...]:
    """(2, 8) from 2.8, 2.8.0 or 2.8.0+cpu; (1, 7) from XGBoost's 1.7-1 (as local.framework
    compares versions)."""
    numbers = re.findall(r"\d+", version.split("+")[0].split("-")[0])
    return tuple(int(n) for n in numbers[:2])


def _kind(instance_type: str | None) -> tuple[str, str | None]:
    """cpu or gpu by the instance type (catalog/facts.py: the catalog, else the family letter);
    the SDK's local and local_gpu too. A Trainium instance runs the Neuron images, whose packages
    are not stored: the CPU image's stand for them."""
    if not instance_type or instance_type == "local":
        return "cpu", None
    if instance_type == "local_gpu":
        return "gpu", None
    from sagelaunch.catalog import facts

    kind = facts.instance_kind(instance_type)
    if kind == "trainium":
        return "cpu", (
            f"{instance_type} runs the Neuron images, whose packages are not stored with "
            "sagelaunch: the CPU image's stand for them"
        )
    return ("gpu" if kind == "gpu" else "cpu"), None


# ---------------------------------------------------------------------------------------------
# The stored files
# ---------------------------------------------------------------------------------------------


def stored(name: str) -> tuple[dict[str, str], str]:
    """A data file's header fields (repo, path, commit, sha256, ...) and its body: what it holds
    of the published file, verbatim."""
    text = (data_dir() / name).read_text("utf-8")
    header, _, rest = text.partition("\n\n")
    fields = {}
    for line in header.splitlines():
        key, sep, value = line.removeprefix("# ").partition(": ")
        if sep and re.fullmatch(r"[a-z0-9-]+", key):
            fields[key] = value
    return fields, rest


def body(name: str) -> str:
    return stored(name)[1]


# ---------------------------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------------------------

DLC = "aws/deep-learning-containers"
XGB = "aws/sagemaker-xgboost-container"
# The commits read. DLC's branch master holds <framework>/training/docker/<version>/py3/ (PyTorch
# up to 2.10, TensorFlow up to 2.19); its branch main docker/<framework>/, one Dockerfile and a uv
# project per version (PyTorch 2.11 on, TensorFlow 2.21). The XGBoost container's branch master
# holds 3.0-5, its branch 1.7-1 that version.
DLC_MASTER = "f06ada0e08ec0be1627f201691856eb8c28abd17"
DLC_MAIN = "e0ecedea6a1c56d6b5914f9cfb2fec5c548e67e0"
XGB_MASTER = "cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae"
XGB_1_7 = "f7a93a21e50e44b4077f0889a7f676cad8c226f3"


@dataclass(frozen=True)
class Source:
    repo: str
    commit: str
    path: str
    name: str  # the data file's name under data/images/

    @property
    def whole(self) -> bool:
        """A requirements.txt or pyproject.toml is stored whole; a Dockerfile as its excerpt."""
        return not self.name.endswith("Dockerfile")

    @property
    def url(self) -> str:
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{self.path}"


def _dlc_dockerfiles(framework: str, cuda: dict[str, str]) -> list[tuple[Image, list[Source]]]:
    """The images of DLC's branch master: one Dockerfile each for CPU and GPU."""
    found = []
    for version, cu in cuda.items():
        folder = f"{framework}/training/docker/{version}/py3"
        for kind, path in (("cpu", "Dockerfile.cpu"), ("gpu", f"{cu}/Dockerfile.gpu")):
            source = Source(
                DLC, DLC_MASTER, f"{folder}/{path}", f"{framework}-{version}-{kind}.Dockerfile"
            )
            found.append((Image(framework, version, kind, (source.name,)), [source]))  # fmt: skip
    return found


def _dlc_uv(
    framework: str, versions: list[str], dockerfile: str
) -> list[tuple[Image, list[Source]]]:
    """The images of DLC's branch main: a Dockerfile (per framework or per version) whose stages
    `uv sync` the version's pyproject.toml, its `sagemaker` extra in the SageMaker stage."""
    found = []
    for version in versions:
        for kind, flavour in (("cpu", "cpu"), ("gpu", "cuda")):
            path = dockerfile.format(version=version, flavour=flavour)
            shared = "{version}" not in dockerfile  # one Dockerfile for every version
            name = f"{framework}-{kind}" if shared else f"{framework}-{version}-{kind}"
            sources = [
                Source(DLC, DLC_MAIN, path, f"{name}.Dockerfile"),
                Source(DLC, DLC_MAIN, f"docker/{framework}/{version}/{flavour}/pyproject.toml",
                       f"{framework}-{version}-{kind}.pyproject.toml"),
            ]  # fmt: skip
            found.append((Image(framework, version, kind, tuple(s.name for s in sources)), sources))
    return found


def _huggingface(versions: dict[str, tuple[str, str]]) -> list[tuple[Image, list[Source]]]:
    """The Hugging Face PyTorch training images of DLC's branch master, one per PyTorch version's
    folder, filed under the Transformers version its ARG TRANSFORMERS_VERSION pins (a job names
    its image by that, the SDK's huggingface.json one PyTorch for each): GPU only (the table
    lists no CPU image), each a Dockerfile FROM the PyTorch training image of that version (the
    PyTorch GPU image's file, stored for it), its own installs after that image's."""
    found = []
    for version, (cu, transformers) in versions.items():
        path = f"huggingface/pytorch/training/docker/{version}/py3/{cu}/Dockerfile.gpu"
        source = Source(DLC, DLC_MASTER, path, f"huggingface-pytorch-{version}-gpu.Dockerfile")
        files = (f"pytorch-{version}-gpu.Dockerfile", source.name)
        found.append((Image("huggingface", transformers, "gpu", files), [source]))
    return found


def _xgboost(version: str, commit: str) -> tuple[Image, list[Source]]:
    """The XGBoost container: a base and a final Dockerfile, and the requirements.txt the final one
    installs; one image for CPU and GPU instances."""
    name, folder = f"xgboost-{version}", f"docker/{version}"
    sources = [
        *(
            Source(XGB, commit, f"{folder}/{part}/Dockerfile.cpu", f"{name}-{part}.Dockerfile")
            for part in ("base", "final")
        ),
        Source(XGB, commit, "requirements.txt", f"{name}.requirements.txt"),
    ]  # fmt: skip
    return Image("xgboost", version, "any", tuple(s.name for s in sources)), sources


def sources() -> list[tuple[Image, list[Source]]]:
    """Every image stored, and the published files that define it."""
    pytorch_cuda = {
        "2.3": "cu121", "2.4": "cu124", "2.5": "cu124", "2.6": "cu126", "2.7": "cu128",
        "2.8": "cu129", "2.9": "cu130", "2.10": "cu130",
    }  # fmt: skip
    tensorflow_cuda = {"2.14": "cu118", "2.16": "cu123", "2.18": "cu125", "2.19": "cu125"}
    return [
        *_dlc_dockerfiles("pytorch", pytorch_cuda),
        *_dlc_uv("pytorch", ["2.11", "2.12", "2.13"], "docker/pytorch/Dockerfile.{flavour}"),
        *_dlc_dockerfiles("tensorflow", tensorflow_cuda),
        *_dlc_uv("tensorflow", ["2.21"], "docker/tensorflow/{version}/Dockerfile.{flavour}"),
        # PyTorch version: (its CUDA folder, the Transformers version the Dockerfile pins)
        *_huggingface(
            {"2.5": ("cu124", "4.49"), "2.7": ("cu128", "4.55"), "2.8": ("cu129", "4.56")}
        ),
        _xgboost("1.7-1", XGB_1_7),
        _xgboost("3.0-5", XGB_MASTER),
    ]


def render(source: Source, text: str) -> str:
    """A data file: its header (the source) and what it keeps of ``text``, verbatim."""
    kept = text if source.whole else excerpt(text)
    what = (
        "The whole file, verbatim."
        if source.whole
        else "Its FROM, ARG and ENV instructions, the RUN instructions that run pip, uv or conda, "
        "and COPY of a requirements file or from another stage, each verbatim and whole."
    )
    header = [
        f"# Of {source.repo} {source.path} at its commit {source.commit[:12]}: {what}",
        f"# Written by `{GENERATOR}`; do not edit (--check compares).",
        f"# repo: {source.repo}",
        f"# path: {source.path}",
        f"# commit: {source.commit}",
        f"# sha256: {hashlib.sha256(text.encode('utf-8')).hexdigest()}",
        f"# source: https://github.com/{source.repo}/blob/{source.commit}/{source.path}",
    ]
    return "\n".join(header) + "\n\n" + kept


def generate(fetch: Callable[[Source], str]) -> dict[str, str]:
    """Every data file's name and text."""
    files: dict[str, str] = {}
    index = []
    for image, image_sources in sources():
        for source in image_sources:
            if source.name not in files:
                files[source.name] = render(source, fetch(source))
        index.append(
            {"framework": image.framework, "version": image.version, "kind": image.kind,
             "files": list(image.files)}
        )  # fmt: skip
    note = (
        f"Written by `{GENERATOR}`: each image (framework, version, cpu/gpu/any) and its files "
        "under this folder, each a published definition of the image (its header names it)."
    )
    files[INDEX] = json.dumps({"note": note, "images": index}, indent=1) + "\n"
    return files


def _fetcher(clones: dict[str, Path]) -> Callable[[Source], str]:
    def fetch(source: Source) -> str:
        if source.repo in clones:
            import subprocess

            command = ["git", "--git-dir", str(clones[source.repo]), "show"]
            shown = subprocess.run(
                [*command, f"{source.commit}:{source.path}"], capture_output=True, check=True
            )
            return shown.stdout.decode("utf-8")
        from urllib.request import urlopen

        with urlopen(source.url, timeout=60) as response:
            return response.read().decode("utf-8")

    return fetch


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog=GENERATOR, description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--git", action="append", default=[], metavar="OWNER/NAME=GIT_DIR",
        help="read that repository's files from a local clone (its git directory)",
    )  # fmt: skip
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    parser.add_argument("--out", type=Path, default=Path(__file__).parents[1] / "data" / "images")
    args = parser.parse_args(argv)
    clones = {k: Path(v) for k, _, v in (item.partition("=") for item in args.git)}
    files = generate(_fetcher(clones))
    if args.check:
        stale = sorted(
            n for n, t in files.items() if not (args.out / n).is_file()
            or (args.out / n).read_text("utf-8") != t
        )  # fmt: skip
        extra = sorted(p.name for p in args.out.iterdir() if p.is_file() and p.name not in files)
        for name in stale:
            print(f"differs from what the generator writes: {name}")
        for name in extra:
            print(f"not written by the generator: {name}")
        return 1 if stale or extra else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (args.out / name).write_text(text, "utf-8")
    print(f"wrote {len(files)} files to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
