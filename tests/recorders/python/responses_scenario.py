"""responses' recorder: records the scenario, sent with `requests`, with
`@responses._recorder.record(file_path=...)` into one file, `<CASSETTE_DIR>/<scenario name>.yaml`,
or replays it with `responses._add_from_file` (an `OrderedRegistry`, as the recorder keeps
them: the n-th request gets the n-th answer). The file holds each answer with its method and
URL (query included), never a request's headers or body; the recorder drops `Content-Type`
(kept as `content_type`), `Content-Encoding`, `Content-Length`, `Date`, `Server` and
`Connection`, and keeps a body as the text `requests` decoded (gzip undone).

Usage: responses_scenario.py record|replay SCENARIO.json CASSETTE_DIR
"""

import os
import sys

import responses
from responses import _recorder
from responses.registries import OrderedRegistry

import scenario


def main(mode, scenario_path, cassette_dir):
    s = scenario.load(scenario_path)
    path = os.path.join(cassette_dir, s["name"] + ".yaml")
    if mode == "record":
        os.makedirs(cassette_dir, exist_ok=True)

        @_recorder.record(file_path=path)
        def run():
            return scenario.run(s)

    elif mode == "replay":

        @responses.activate(registry=OrderedRegistry)
        def run():
            responses._add_from_file(file_path=path)
            return scenario.run(s)

    else:
        raise SystemExit(f"unknown mode {mode!r}")
    return scenario.report(run())


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
