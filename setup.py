"""The package list, discovered: every package under cli/ plus the entry points.

pyproject.toml holds everything else. Its `packages` takes a list or a find directive, never
both, and the entry points live outside cli/ (mapped to sagelaunch.entrypoints by its
package-dir): a hand-kept list once shipped a wheel without sagelaunch.strategies.
tests/packaging/test_wheel.py builds the wheel and runs the installed tool.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages("cli"), "sagelaunch.entrypoints"])
