"""Runs case oracles: `python3 run.py OUT CASE_DIR...` executes each `CASE_DIR/oracle.py` and
writes what its `case` describes (case.json and the .bin files) into `OUT/<case name>/`.
`cargo xtask regen` runs it into a temporary folder and then compares or copies the results.
"""

import os
import runpy
import sys

import common


def main():
    out, dirs = sys.argv[1], sys.argv[2:]
    for d in dirs:
        d = os.path.abspath(d)
        name = os.path.basename(d)
        common.CASE_DIR = d
        ns = runpy.run_path(os.path.join(d, "oracle.py"), run_name="oracle")
        case = ns.get("case")
        if not isinstance(case, common.Case):
            sys.exit(f"{name}/oracle.py: defines no `case = Case(...)`")
        case.write(os.path.join(out, name))


if __name__ == "__main__":
    main()
