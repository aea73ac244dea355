"""HTTPretty: records the scenario with `httpretty.record(filename)` or replays it with
`httpretty.playback(filename)`, one JSON file, `<CASSETTE_DIR>/<scenario name>.json`.

Usage: httpretty_scenario.py record|replay SCENARIO.json CASSETTE_DIR
"""

import os
import sys

import httpretty

import scenario


def main(mode, scenario_path, cassette_dir):
    s = scenario.load(scenario_path)
    path = os.path.join(cassette_dir, s["name"] + ".json")
    if mode == "record":
        os.makedirs(cassette_dir, exist_ok=True)
        context = httpretty.HTTPretty.record(path)
    elif mode == "replay":
        context = httpretty.HTTPretty.playback(path)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    with context:
        problems = scenario.run(s, send=scenario.with_urllib)
    return scenario.report(problems)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
