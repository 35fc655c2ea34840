"""Builds the optional C extension; everything else about the package is in pyproject.toml.

``scorecard._fastscore`` is the scoring hot path in C (docs/performance.md). It is optional:
where it cannot be compiled, every record takes the Python path, which gives the same output.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "scorecard._fastscore",
            sources=["src/scorecard/_fastscore.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
