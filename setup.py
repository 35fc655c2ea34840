"""Builds the optional C extension and ships the case catalog; everything else about the package
is in pyproject.toml.

``scorecard.fast._fastscore`` is the scoring hot path in C (sources in ``src/fastscore/``, design in
docs/performance.md). It is optional: where it cannot be compiled, every record takes the Python
path, which gives the same output.

The case catalog stays where people edit it, ``cases/`` at the top of the repository (the one
copy in git). A built package carries it as package data, ``scorecard/cases/``, copied there
by ``build_py``, so that an installed wheel scores without a checkout
(``scorecard.contract.default_cases_dir``). An editable install reads the checkout's
``cases/`` in place instead, so nothing is copied for it.
"""

from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
CASE_SUFFIXES = (".yaml", ".yml", ".json")  # as scorecard.contract._catalog reads them


class build_py_with_cases(build_py):
    """``build_py`` that also copies ``cases/`` into the built package as ``scorecard/cases``."""

    def _case_files(self) -> list[tuple[Path, Path]]:
        target = Path(self.build_lib, "scorecard", "cases")
        return [
            (case, target / case.name)
            for case in sorted(CASES.iterdir())
            if case.suffix in CASE_SUFFIXES and case.is_file()
        ]

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # the checkout's cases/ is read where it is
        files = self._case_files()
        if not files:
            raise RuntimeError(f"no case files in {CASES}: the package would have no catalog")
        files[0][1].parent.mkdir(parents=True, exist_ok=True)
        for source, target in files:
            self.copy_file(str(source), str(target), preserve_mode=False)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs: list[str] = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outputs
        return outputs + [str(target) for _, target in self._case_files()]


setup(
    cmdclass={"build_py": build_py_with_cases},
    ext_modules=[
        Extension(
            "scorecard.fast._fastscore",
            sources=sorted(str(path) for path in Path("src/fastscore").glob("*.c")),
            depends=["src/fastscore/fastscore.h"],
            extra_compile_args=["-O2", "-fvisibility=hidden"],
            optional=True,
        )
    ],
)
