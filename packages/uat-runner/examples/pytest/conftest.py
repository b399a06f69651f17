# Prints pytest's JUnit XML between the markers kfx uat run looks for in the suite's log, so that
# the report reaches CI even though the pod is gone by then. Use it with --junitxml=PATH.
import pathlib

BEGIN = "--- kfx:junit begin ---"
END = "--- kfx:junit end ---"


def pytest_unconfigure(config):
    # The junitxml plugin has written its file in pytest_sessionfinish, which ran before this.
    path = getattr(config.option, "xmlpath", None)
    if path and pathlib.Path(path).is_file():
        print(BEGIN)
        print(pathlib.Path(path).read_text(encoding="utf-8"))
        print(END, flush=True)
