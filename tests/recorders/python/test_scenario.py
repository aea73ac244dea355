"""pytest-recording: one test that performs the scenario under `@pytest.mark.vcr`.

Its cassette is `cassettes/test_scenario/test_scenario.yaml` beside this file (the plugin's
naming). `pytest --record-mode=once` records it, `pytest --record-mode=none` replays it. The
scenario file is named by the `RECORDER_SCENARIO` environment variable.
"""

import os

import pytest

import scenario


@pytest.fixture(scope="module")
def vcr_config():
    """A scrubbed cassette matches when the test filters the same way (`filters`)."""
    filters = scenario.load(os.environ["RECORDER_SCENARIO"]).get("filters", {})
    return {"filter_query_parameters": [tuple(pair) for pair in filters.get("query", [])]}


@pytest.mark.vcr
def test_scenario():
    problems = scenario.run(scenario.load(os.environ["RECORDER_SCENARIO"]))
    assert not problems, "\n".join(problems)
