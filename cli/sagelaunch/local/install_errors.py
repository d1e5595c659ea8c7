"""Why an install for a local run failed, read from uv's own output, as one error that names the
cause: a name the package index lacks (requirements.txt's fault), a URL this machine cannot reach
(the network's, not the file's), or a framework version with no wheel for this Python (the
machine's, with what would run instead).

uv reports a failed request as a chain of causes, the last one the system's
(`error sending request for url (http://127.0.0.1:9/wheels)` ... `Connection refused (os error
111)`), and a version it cannot use with a hint (`You require CPython 3.11 (cp311), but we only
found wheels for tensorflow (v2.1.4) with the following Python ABI tags: cp36m, cp37m`).
"""

from __future__ import annotations

import re
import sys
import sysconfig
from pathlib import Path

from sagelaunch.errors import UsageError

# uv's words for a request that got no answer, and the system's for why (lower case; first
# match wins). A build's own output may say "connection refused" too: only uv's count.
_REQUEST_FAILED = ("error sending request for url", "failed to fetch", "failed to download")
_NETWORK_CAUSES = (
    ("network was disabled", "the network is disabled here (uv's --offline or UV_OFFLINE)"),
    ("connection refused", "the connection was refused"),
    ("dns error", "its host name does not resolve (DNS)"),
    ("failed to lookup address", "its host name does not resolve (DNS)"),
    ("timed out", "the connection timed out"),
    ("network is unreachable", "the network is unreachable"),
    ("no route to host", "there is no route to its host"),
    ("connection reset", "the connection was reset"),
    ("invalid peer certificate", "its TLS certificate was not accepted"),
    ("tcp connect error", "the connection failed"),
)
_URL = re.compile(
    r"(?:Failed to fetch: |error sending request for url \(|URL: |cache for: )`?"
    r"([a-z][a-z0-9+.-]*://[^\s`)]+)"
)
# pip's options in requirements.txt that take a URL (or a path).
_URL_OPTIONS = re.compile(
    r"^\s*(-f|--find-links|-i|--index-url|--extra-index-url)(?:\s*=\s*|\s+)(\S+)", re.MULTILINE
)
_NO_WHEEL = re.compile(r"has no (?:wheels with a matching [\w ]+ tag|usable wheels)")
# "Because only xgboost==1.0.2 is available and you require xgboost==1.99.*", "Because there is
# no version of xgboost==1.99.*" (no release matches at all).
_ONLY = re.compile(r"Because only (.+?) (?:is|are) available and you require (\S+?),")
_NO_VERSION = re.compile(r"there is no version of (\S+?)(?: and|,|$)")


def requirements_failure(stderr: str, requirements: Path, what: str) -> UsageError:
    """The error for a failed install of ``what`` (requirements.txt or the source package)."""
    name = requirements.name
    network = _network(stderr)
    if network:
        url, cause = network
        option = _option_naming(url, requirements)
        where = f" ({option} in {name})" if option else ""
        return UsageError(
            f"installing {what} needs {url}{where}, which this machine cannot reach: {cause}. "
            f"The network stopped the install, not {name}",
            _network_hint(
                url,
                "or carry the wheels in source_dir (--no-index, --find-links "
                "./wheels in requirements.txt)",
            ),
        )
    flat = " ".join(stderr.split())  # uv wraps its long lines
    missing = re.findall(r"Because (\S+) was not found in the package registry", flat)
    if missing:
        return UsageError(
            f"{name}: {', '.join(sorted(set(missing)))} is not in the package index, "
            "so the container's pip install would fail too",
            "fix the name in requirements.txt, or vendor the package into source_dir",
        )
    return UsageError(
        f"installing {what} failed (as the container's pip install would):\n{_tail(stderr)}",
        "fix requirements.txt (or the setup.py package) in source_dir",
    )


def framework_failure(
    stderr: str, framework: str, wanted: str, pin: str, installed: str
) -> UsageError:
    """The error for ``local.framework: match`` failing to install ``pin``: what would run
    instead is this machine's ``installed`` (local.framework: installed)."""
    instead = (
        f"set local.framework: installed to run this machine's {framework} {installed} instead "
        f"(results and APIs may differ from the container's {wanted})"
    )
    network = _network(stderr)
    if network:
        url, cause = network
        return UsageError(
            f"local.framework: match needs {url} to install {pin}, and this machine cannot "
            f"reach it: {cause}",
            _network_hint(url, instead),
        )
    headline = f"local.framework: match cannot install {framework} {wanted} on this machine"
    reason = no_wheel(stderr)
    if reason:
        return UsageError(
            f"{headline}: the package index has no wheel of {framework} {wanted} for "
            f"{this_python()} ({reason})",
            f"{instead}, or run the container itself with --docker",
        )
    flat = " ".join(stderr.split())  # uv wraps its long lines
    only = _ONLY.search(flat)
    if only:
        return UsageError(
            f"{headline}: the package index has no {only.group(2)} (only {only.group(1)})", instead
        )
    absent = _NO_VERSION.search(flat)
    if absent:
        return UsageError(f"{headline}: the package index has no {absent.group(1)}", instead)
    return UsageError(f"{headline}: installing {pin} failed:\n{_tail(stderr)}", instead)


def no_wheel(stderr: str) -> str | None:
    """uv's reason when the index has the version but no wheel for this Python or platform."""
    return _uv_reason(stderr) if _NO_WHEEL.search(" ".join(stderr.split())) else None


def this_python() -> str:
    """This interpreter and platform, as wheels are chosen (CPython 3.11 on linux-x86_64)."""
    name = "CPython" if sys.implementation.name == "cpython" else sys.implementation.name
    return f"{name} {sys.version_info[0]}.{sys.version_info[1]} on {sysconfig.get_platform()}"


def _network(stderr: str) -> tuple[str, str] | None:
    """(the URL, the cause) when uv could not reach a server; None for any other failure."""
    lower = stderr.lower()
    cause = next((words for text, words in _NETWORK_CAUSES if text in lower), None)
    offline = "network was disabled" in lower
    if cause is None or not (offline or any(text in lower for text in _REQUEST_FAILED)):
        return None
    found = _URL.search(stderr)
    return (found.group(1) if found else "the package index"), cause


def _option_naming(url: str, requirements: Path) -> str | None:
    """The requirements.txt option whose URL ``url`` is, or is under (an index's page)."""
    text = requirements.read_text("utf-8") if requirements.is_file() else ""
    for option, value in _URL_OPTIONS.findall(text):
        if url.rstrip("/").startswith(value.rstrip("/")):
            return option
    return None


def _network_hint(url: str, otherwise: str) -> str:
    host = re.sub(r"^[a-z][a-z0-9+.-]*://([^/]+).*$", r"\1", url)
    check = f"check that this machine reaches {host}" if "://" in url else "check the network"
    return f"{check} (its network, a proxy in HTTPS_PROXY, a VPN), {otherwise}"


def _uv_reason(stderr: str) -> str:
    """uv's own words on why no wheel fits: its hints, else its resolution's first cause."""
    paragraphs = [" ".join(part.split()) for part in re.split(r"\n\s*\n", stderr)]
    hints = [part[len("hint: ") :] for part in paragraphs if part.startswith("hint: ")]
    if hints:
        return "uv: " + " ".join(hints)
    because = re.search(r"Because (.+?)(?: and |, we)", " ".join(stderr.split()))
    return "uv: " + (because.group(1) if because else _tail(stderr).splitlines()[-1])


def _tail(stderr: str) -> str:
    return "\n".join(stderr.strip().splitlines()[-12:])
