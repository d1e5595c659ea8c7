"""Which environment values are secrets: decided on the variable's name *and* its value.

`import` writes a secret as a reference (``${env:NAME}``) that plan, submit and local read from
the user's shell, so a secret never lands in a config file. A reference to a value that was no
secret costs the user an `export` of something harmless before the config plans again, so the
name alone does not decide (``env_key1: env_value1`` is a value, ``TOKENIZERS_PARALLELISM: false``
too). A value is a secret when

- its shape is a known credential's, whatever the name: an AWS access key id (AKIA/ASIA...),
  an AWS secret access key (40 characters of base64 with mixed case and digits), a Hugging Face,
  GitHub, GitLab, Slack, OpenAI-style (sk-...), Stripe or Google API token, a JSON Web Token, a
  PEM private key, a URL with a password in it;
- the name says password, secret, token, credential or api/access/private key (as a word of the
  name: TOKENIZERS is no TOKEN) and the value is not trivial (a number, a boolean, a path, a
  placeholder, a URL without a password, fewer than 6 characters), unless the name describes
  the secret instead of holding it (SECRET_ARN, TOKEN_PATH, PASSWORD_FILE, SECRET_NAME);
- the name has a weaker hint (KEY, AUTH, SALT, SIGNATURE) and the value looks random;
- or the value alone is a long random token (32+ characters of letters and digits in both cases,
  high entropy, no path or URL punctuation).

Each finding says why in words, never with the value (import prints the names and reasons).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise


@dataclass(frozen=True)
class Finding:
    """A secret-looking environment variable: its name and why (never its value)."""

    name: str
    reason: str


# Credential shapes, whatever the variable is called (matched against the whole value unless
# the pattern says otherwise).
_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), reason)
    for pattern, reason in (
        (r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}", "an AWS access key id"),
        (r"hf_[A-Za-z0-9]{30,}", "a Hugging Face token"),
        (r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})", "a GitHub token"),
        (r"glpat-[A-Za-z0-9_\-]{20,}", "a GitLab token"),
        (r"xox[abprs]-[A-Za-z0-9\-]{10,}", "a Slack token"),
        (r"sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}", "an API secret key (sk-...)"),
        (r"(?:sk|rk)_live_[A-Za-z0-9]{16,}", "a Stripe live key"),
        (r"AIza[0-9A-Za-z_\-]{35}", "a Google API key"),
        (
            r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
            "a JSON Web Token",
        ),
        (r"(?s).*-----BEGIN [A-Z ]*PRIVATE KEY-----.*", "a PEM private key"),
        (r"[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]+:[^/\s@]+@.+", "a URL with a password"),
    )
)
_AWS_SECRET_KEY = re.compile(r"[A-Za-z0-9/+]{40}")

# Words of a name (HF_TOKEN -> HF, TOKEN; apiKey -> API, KEY; env_key1 -> ENV, KEY, 1).
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_STRONG_WORDS = {
    "PASSWORD": "a password",
    "PASSWD": "a password",
    "PASSPHRASE": "a password",
    "PASS": "a password",
    "PWD": "a password",
    "SECRET": "a secret",
    "SECRETS": "a secret",
    "TOKEN": "a token",
    "CREDENTIAL": "a credential",
    "CREDENTIALS": "a credential",
    "APIKEY": "an API key",
}
_STRONG_PAIRS = {
    ("API", "KEY"): "an API key",
    ("ACCESS", "KEY"): "an access key",
    ("PRIVATE", "KEY"): "a private key",
    ("SECRET", "KEY"): "a secret key",
    ("AUTH", "KEY"): "an auth key",
    ("CLIENT", "KEY"): "a client key",
}
_WEAK_WORDS = {"KEY", "AUTH", "SALT", "SIGNATURE", "SIG", "HMAC", "CERT"}
# A last word that makes the variable *about* a secret, not the secret (SECRET_ARN, TOKEN_PATH).
_DESCRIBES = {
    "NAME", "NAMES", "ID", "IDS", "ARN", "PATH", "FILE", "FILES", "DIR", "URI", "URL", "ENDPOINT",
    "TYPE", "MODE", "LENGTH", "LEN", "SIZE", "COUNT", "LIMIT", "TTL", "TIMEOUT", "EXPIRY",
    "EXPIRATION", "VERSION", "REGION", "ENABLED", "DISABLED", "FORMAT", "HEADER", "FIELD", "KIND",
    "LOCATION", "STORE", "PROVIDER", "SOURCE",
}  # fmt: skip
_TRIVIAL = {"", "true", "false", "yes", "no", "on", "off", "none", "null", "nil", "auto", "n/a"}
_PLACEHOLDER = re.compile(r"<[^>]*>|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|[*x.#]+|(?i:changeme)")
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9+=_\-]+")


def words(name: str) -> list[str]:
    """The words of an environment variable's name, upper-cased."""
    return [w.upper() for w in _WORDS.findall(name)]


def finding(name: str, value: str) -> Finding | None:
    """Why ``name=value`` holds a secret, or None when it does not."""
    value = str(value)
    text = value.strip()
    if _PLACEHOLDER.fullmatch(text):
        return None  # a reference already, or a placeholder
    for pattern, reason in _SHAPES:
        if pattern.fullmatch(text):
            return Finding(name, f"value has the shape of {reason}")
    if _AWS_SECRET_KEY.fullmatch(text) and _mixed(text) and _unworded(text, 0.35):
        return Finding(name, "value has the shape of an AWS secret access key (40 characters)")
    named = _named(words(name))
    if named is not None and not _trivial(text):
        return Finding(name, f"name says {named} and the value is not trivial")
    if _weak_hint(words(name)) and _random_looking(text, minimum=16, changes=0.4):
        return Finding(name, "name hints at a key and the value looks random")
    if _random_looking(text, minimum=32, changes=0.45):
        return Finding(name, f"value is a high-entropy token ({len(text)} characters)")
    return None


def scan(environment: Mapping[str, str]) -> list[Finding]:
    """The secret-looking variables of ``environment``, in its order."""
    found = (finding(name, value) for name, value in environment.items())
    return [f for f in found if f is not None]


# The same shapes found inside a line of text, each a whole word (disk-usage-... is no sk-...).
_SHAPES_IN_TEXT = tuple(
    (
        p
        if p.pattern.startswith("(?s)")
        else re.compile(rf"(?<![A-Za-z0-9_])(?:{p.pattern})(?![A-Za-z0-9])"),
        reason,
    )
    for p, reason in _SHAPES
)
# A value given a name in a line of a file: `NAME = "value"`, `"name": "value"`, `NAME=value`.
_QUOTED = re.compile(r"""([A-Za-z_][A-Za-z0-9_.\-]*)["']?\s*[:=]\s*(["'])([^"'\s]+)\2""")
_BARE = re.compile(
    r"""^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.\-]*)\s*[:=]\s*([^"'\s#,;(){}]+)\s*$"""
)


def has_shape(text: str) -> bool:
    """Whether a credential's shape is anywhere in ``text``: a file without one skips the
    per-line shape search (a bundle's files are scanned on every plan, cached ones too)."""
    if "-----BEGIN" in text:  # the PEM shape: its (?s).* would backtrack over a whole file
        return True
    return any(p.search(text) for p, _ in _SHAPES_IN_TEXT if not p.pattern.startswith("(?s)"))


def line_finding(line: str, code: bool = False, shapes: bool = True) -> str | None:
    """Why a line of a file holds a secret (never the value), or None: a credential's shape
    anywhere in it, or a secret-looking value given a name. In ``code`` (a .py file) only a
    quoted value counts as given: ``token = tokenizer(x)`` names no secret. ``shapes=False``:
    the caller knows the line holds no credential's shape."""
    if len(line) > 4096:
        line = line[:4096]
    for pattern, reason in _SHAPES_IN_TEXT if shapes else ():
        if pattern.search(line):
            return f"has the shape of {reason}"
    if ":" not in line and "=" not in line:
        return None  # nothing is given a name without one
    named = [(m.group(1), m.group(3)) for m in _QUOTED.finditer(line)]
    if not code:
        named += [(m.group(1), m.group(2)) for m in _BARE.finditer(line)]
    for name, value in named:
        found = finding(name.rsplit(".", 1)[-1], value)
        if found is not None and "high-entropy" not in found.reason:
            return f"{name}: {found.reason}"
    return None


def _named(parts: list[str]) -> str | None:
    """What a secret-holding name says it holds (None: no such word, or it describes one)."""
    if not parts or parts[-1] in _DESCRIBES:
        return None
    for first, second in pairwise(parts):
        if (first, second) in _STRONG_PAIRS:
            return _STRONG_PAIRS[first, second]
    for part in parts:
        if part in _STRONG_WORDS:
            return _STRONG_WORDS[part]
    return None


def _weak_hint(parts: list[str]) -> bool:
    return bool(parts) and parts[-1] not in _DESCRIBES and any(p in _WEAK_WORDS for p in parts)


def _trivial(text: str) -> bool:
    """Values no secret has: short, a number or boolean, a path, a URL without a password."""
    return (
        len(text) < 6
        or text.lower() in _TRIVIAL
        or _NUMBER.fullmatch(text) is not None
        or text.startswith(("/", "./", "../", "~/", "file:"))
        or re.match(r"[A-Za-z][A-Za-z0-9+.\-]*://", text) is not None
    )


def _mixed(text: str) -> bool:
    return all(re.search(c, text) for c in (r"[A-Z]", r"[a-z]", r"[0-9]"))


def entropy(text: str) -> float:
    """Shannon entropy of ``text``'s characters, in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _class(char: str) -> str:
    return "U" if char.isupper() else "l" if char.islower() else "d" if char.isdigit() else "."


def _unworded(text: str, changes: float) -> bool:
    """No words in it: the character class (upper, lower, digit) changes often, as in a random
    string (about 0.62 of neighbours in base62), and no run of 7 lowercase letters: a
    CamelCase identifier (ResNet50ImageNetPretrainedV2) changes class about 0.4 of the time and
    spells its words out."""
    classes = [_class(c) for c in text]
    ratio = sum(a != b for a, b in pairwise(classes)) / max(len(text) - 1, 1)
    return ratio >= changes and re.search(r"[a-z]{7}", text) is None


def _random_looking(text: str, *, minimum: int, changes: float) -> bool:
    """A token: letters and digits (and + = _ -) only, both cases and digits, high entropy and
    no words; or long hex (32+), as API keys often are, under a key-ish name."""
    if len(text) < minimum or not _TOKEN_CHARS.fullmatch(text):
        return False
    if re.fullmatch(r"[0-9a-f]{32,}|[0-9A-F]{32,}", text):
        return minimum < 32  # hex: a key under a key-ish name; alone, a digest or an id
    digits = sum(c.isdigit() for c in text)
    upper = sum(c.isupper() for c in text)
    lower = sum(c.islower() for c in text)
    return (
        digits >= 2
        and upper >= 2
        and lower >= 2
        and entropy(text) >= 3.5
        and _unworded(text, changes)
    )
