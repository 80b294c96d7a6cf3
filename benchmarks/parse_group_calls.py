"""Count the ``parse_group`` calls of one ``cogo verify`` run, by call site and by the type of the argument (issue 50).

    python benchmarks/parse_group_calls.py [--group 23] [--top 20]

A group should be coerced once, at the edge (the API and the commands); every other call re-parses a group that
is already parsed.  Every cogo module that imported the name gets a counting wrapper (the modules are imported
first, so the ones imported late are wrapped too), then ``cogo verify --group G --exact`` runs in process.
"""
from __future__ import annotations

import argparse
import collections
import importlib
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--group", default="23")
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args()
    import cogo
    from cogo.algebra import group_parsing as spec

    original = spec.parse_group
    sites, kinds = collections.Counter(), collections.Counter()

    def counting(group, *a, **k):
        f = sys._getframe(1)
        sites[f"{Path(f.f_code.co_filename).resolve().relative_to(ROOT)}:{f.f_lineno} ({f.f_code.co_name})"] += 1
        kinds[type(group).__name__] += 1
        return original(group, *a, **k)

    spec.parse_group = counting
    for m in pkgutil.walk_packages(cogo.__path__, "cogo."):
        try:
            importlib.import_module(m.name)
        except Exception:  # an optional extra that is not installed: its module is not wrapped
            continue
    for name, mod in list(sys.modules.items()):
        if name.startswith("cogo") and getattr(mod, "parse_group", None) is original:
            mod.parse_group = counting
    from cogo.cli import main as cogo_main

    rc = cogo_main(["verify", "--group", args.group, "--exact", "--no-progress"])
    print(f"\nparse_group calls during cogo verify --group {args.group} --exact: {sum(sites.values())} "
          f"(argument types: {dict(kinds)}), exit status {rc}")
    for site, n in sites.most_common(args.top):
        print(f"{n:5d}  {site}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
