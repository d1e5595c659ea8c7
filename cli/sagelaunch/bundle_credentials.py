"""Files and folders that never leave the machine in a code bundle: well-known credentials.

Whatever .gitignore or .sagelaunchignore say (a `!pattern` cannot bring one back), each is left
out and named in a warning. The list is drawn from where the tools keep their secrets, as their
documentation says:

- OpenSSH (ssh(1) FILES): ``~/.ssh/`` and its keys ``id_rsa``, ``id_dsa``, ``id_ecdsa``,
  ``id_ed25519`` (and ``*_sk`` variants); PuTTY's ``*.ppk``;
- the cloud CLIs: AWS (``~/.aws/credentials`` and ``config``), Google Cloud
  (``~/.config/gcloud/``, application default credentials), Azure (``~/.azure/``), Oracle
  Cloud (``~/.oci/``), IBM Cloud (``~/.bluemix/``), Alibaba (``~/.aliyun/``), DigitalOcean
  (``~/.config/doctl/``), the GitHub CLI (``~/.config/gh/``), Terraform
  (``~/.terraform.d/credentials.tfrc.json``);
- Kubernetes (``~/.kube/config``), Docker (``~/.docker/config.json``);
- package registries: npm and yarn (``.npmrc``, ``.yarnrc.yml``), PyPI (``.pypirc``),
  pip (``pip.conf``, ``pip.ini``), Gradle (``gradle.properties``), Cargo
  (``.cargo/credentials*``), RubyGems (``.gem/credentials``), Composer (``auth.json``);
- databases and transfer tools: PostgreSQL (``.pgpass``), MySQL (``.my.cnf``), curl/ftp
  (``.netrc``, ``_netrc``), git (``.git-credentials``), Hugging Face (``.huggingface/``,
  ``.cache/huggingface/token``), Weights & Biases (``.netrc``), Kaggle (``kaggle.json``);
- GnuPG (``~/.gnupg/``), pass (``~/.password-store/``), keystores (``*.jks``, ``*.keystore``,
  ``*.p12``, ``*.pfx``), private keys (``*.pem``, ``*.key``);
- shell and REPL histories (bash, zsh, sh, fish, Python, IPython's ``history.sqlite``, psql,
  MySQL, Node, Redis, SQLite), which hold pasted tokens;
- dotenv files (``.env``, ``.env.*``, ``*.env``) and files named ``*secret*`` or
  ``credentials*`` (Python modules excepted: ``secrets_util.py`` is code the job imports).

Names are matched case-insensitively against the path inside the bundle and, for a link, against
the file it points to (``model.bin -> ~/.ssh/id_rsa`` is a key, whatever it is called here).
"""

from __future__ import annotations

from fnmatch import fnmatchcase

# Folders left out whole (matched as the last part(s) of a folder's path).
FOLDERS: tuple[str, ...] = (
    ".ssh",
    ".aws",
    ".azure",
    ".oci",
    ".bluemix",
    ".aliyun",
    ".config/gcloud",
    ".config/doctl",
    ".config/gh",
    ".gnupg",
    ".password-store",
    ".huggingface",
    ".env",  # a dotenv folder (and a virtualenv called .env: never the job's code either)
    ".env.*",
)

# Files left out (matched as the last part(s) of a file's path).
FILES: tuple[str, ...] = (
    # SSH and private keys
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.ppk",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    # cloud and cluster CLIs
    ".kube/config",
    ".docker/config.json",
    ".terraform.d/credentials.tfrc.json",
    ".cargo/credentials*",
    ".gem/credentials",
    ".cache/huggingface/token",
    "application_default_credentials.json",
    "kaggle.json",
    # package registries and tools
    ".npmrc",
    ".yarnrc.yml",
    ".pypirc",
    "pip.conf",
    "pip.ini",
    "gradle.properties",
    "auth.json",
    ".pgpass",
    ".my.cnf",
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".htpasswd",
    # shell and REPL histories
    ".bash_history",
    ".zsh_history",
    ".sh_history",
    ".history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".node_repl_history",
    ".rediscli_history",
    ".sqlite_history",
    ".local/share/fish/fish_history",
    "history.sqlite",
    # dotenv files and files named for what they hold
    ".env",
    ".env.*",
    "*.env",
    "*secret*",
    "credentials*",
)

# Code the job imports is never taken for a credential by its name alone.
_CODE_SUFFIXES = (".py", ".pyi", ".ipynb")
_BY_NAME_ONLY = ("*secret*", "credentials*")


def _matches(parts: list[str], patterns: tuple[str, ...]) -> str | None:
    for pattern in patterns:
        wanted = pattern.split("/")
        if len(parts) >= len(wanted) and all(
            fnmatchcase(part, want)
            for part, want in zip(parts[-len(wanted) :], wanted, strict=True)
        ):
            return pattern
    return None


def is_credential(path: str, is_dir: bool) -> bool:
    """Whether ``path`` (a/b/c, any prefix) is a credential file or folder by its name."""
    parts = [part.lower() for part in path.strip("/").split("/") if part]
    if not parts:
        return False
    if is_dir:
        return _matches(parts, FOLDERS) is not None
    if any(_matches(parts[: i + 1], FOLDERS) for i in range(len(parts) - 1)):
        return True  # a file inside a credential folder (a link's target: ~/.ssh/id_rsa)
    found = _matches(parts, FILES)
    if found in _BY_NAME_ONLY and parts[-1].endswith(_CODE_SUFFIXES):
        return False
    return found is not None
