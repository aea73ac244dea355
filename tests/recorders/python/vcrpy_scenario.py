"""vcrpy: records (`record_mode="once"`) or replays (`record_mode="none"`) the scenario into
one cassette, `<CASSETTE_DIR>/<scenario name>.yaml`, with `vcr.use_cassette`. The client is
the standard library's `urllib.request` (pytest-recording's test uses `requests`).

Usage: vcrpy_scenario.py record|replay SCENARIO.json CASSETTE_DIR
"""

import os
import sys

import vcr

import scenario


def main(mode, scenario_path, cassette_dir):
    s = scenario.load(scenario_path)
    record_mode = {"record": "once", "replay": "none"}[mode]
    path = os.path.join(cassette_dir, s["name"] + ".yaml")
    # A scrubbed cassette matches when the test filters the same way (`filters`, replay only).
    query = [tuple(pair) for pair in s.get("filters", {}).get("query", [])]
    with vcr.use_cassette(path, record_mode=record_mode, filter_query_parameters=query):
        problems = scenario.run(s, send=scenario.with_urllib)
    return scenario.report(problems)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
