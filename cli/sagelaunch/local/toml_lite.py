"""TOML, as much as a pyproject.toml of the training images needs: tomllib is Python 3.11+, and
sagelaunch runs on 3.10 (a test holds this reader to tomllib where both exist)."""

from __future__ import annotations

import re


def toml(text: str) -> dict:  # type: ignore[type-arg]
    """Tables ([a.b], [[a.b]]) and key = value pairs whose values are strings, numbers, booleans,
    arrays and inline tables, over as many lines as an array takes."""
    root: dict = {}  # type: ignore[type-arg]
    table = root
    reader = _TomlValue(text)
    while True:
        reader.skip(newlines=True)
        if reader.done():
            return root
        if reader.peek("[["):
            keys = reader.header("[[", "]]")
            parent = _walk(root, keys[:-1])
            table = {}
            parent.setdefault(keys[-1], []).append(table)
        elif reader.peek("["):
            table = _walk(root, reader.header("[", "]"))
        else:
            keys = reader.keys("=")
            reader.expect("=")
            _walk(table, keys[:-1])[keys[-1]] = reader.value()


def _walk(table: dict, keys: list[str]) -> dict:  # type: ignore[type-arg]
    for key in keys:
        table = table.setdefault(key, {})
        if isinstance(table, list):
            table = table[-1]
    return table


class _TomlValue:
    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def done(self) -> bool:
        return self.at >= len(self.text)

    def peek(self, token: str) -> bool:
        return self.text.startswith(token, self.at)

    def expect(self, token: str) -> None:
        self.skip(newlines=False)
        if not self.peek(token):
            raise ValueError(f"TOML: {token!r} expected at {self.text[self.at : self.at + 30]!r}")
        self.at += len(token)

    def skip(self, *, newlines: bool) -> None:
        blanks = " \t\r\n" if newlines else " \t"
        while not self.done():
            if self.text[self.at] in blanks:
                self.at += 1
            elif self.text[self.at] == "#":
                while not self.done() and self.text[self.at] != "\n":
                    self.at += 1
            else:
                return

    def header(self, opening: str, closing: str) -> list[str]:
        self.at += len(opening)
        keys = self.keys(closing)
        self.expect(closing)
        return keys

    def keys(self, end: str) -> list[str]:
        keys = []
        while True:
            self.skip(newlines=False)
            if self.peek('"') or self.peek("'"):
                keys.append(self.string())
            else:
                match = re.compile(r"[A-Za-z0-9_-]+").match(self.text, self.at)
                if not match:
                    raise ValueError(f"TOML: a key expected at {self.at}")
                keys.append(match.group(0))
                self.at = match.end()
            self.skip(newlines=False)
            if not self.peek("."):
                return keys
            self.at += 1

    def value(self) -> object:
        self.skip(newlines=False)
        if self.peek('"""') or self.peek("'''"):
            raise ValueError("TOML: multi-line strings are not read here")
        if self.peek('"') or self.peek("'"):
            return self.string()
        if self.peek("["):
            self.at += 1
            items: list[object] = []
            while True:
                self.skip(newlines=True)
                if self.peek("]"):
                    self.at += 1
                    return items
                items.append(self.value())
                self.skip(newlines=True)
                if self.peek(","):
                    self.at += 1
        if self.peek("{"):
            self.at += 1
            table: dict = {}  # type: ignore[type-arg]
            while True:
                self.skip(newlines=False)
                if self.peek("}"):
                    self.at += 1
                    return table
                keys = self.keys("=")
                self.expect("=")
                _walk(table, keys[:-1])[keys[-1]] = self.value()
                self.skip(newlines=False)
                if self.peek(","):
                    self.at += 1
        match = re.compile(r"[^\s,\]}#]+").match(self.text, self.at)
        if not match:
            raise ValueError(f"TOML: a value expected at {self.at}")
        self.at = match.end()
        word = match.group(0)
        if word in ("true", "false"):
            return word == "true"
        try:
            return int(word.replace("_", ""))
        except ValueError:
            return float(word.replace("_", "")) if re.fullmatch(r"[-+.\deE_]+", word) else word

    def string(self) -> str:
        quote = self.text[self.at]
        self.at += 1
        out = []
        while self.text[self.at] != quote:
            char = self.text[self.at]
            if char == "\\" and quote == '"':
                self.at += 1
                escaped = self.text[self.at]
                if escaped == "u":
                    out.append(chr(int(self.text[self.at + 1 : self.at + 5], 16)))
                    self.at += 4
                else:
                    out.append({"n": "\n", "t": "\t", "r": "\r"}.get(escaped, escaped))
            else:
                out.append(char)
            self.at += 1
        self.at += 1
        return "".join(out)
