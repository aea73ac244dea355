"""pytest-recording and pytest-vcr: one test that performs the scenario under
`@pytest.mark.vcr`, which both plugins read.

Its cassette is beside this file, named as each plugin names it: pytest-recording's
`cassettes/test_scenario/test_scenario.yaml` (`--record-mode=once` records it,
`--record-mode=none` replays it), pytest-vcr's `cassettes/test_scenario.yaml`
(`--vcr-record=once`, `--vcr-record=none`). A `conftest.py` that overrides `vcr_cassette_dir`
moves it. The scenario file is named by the `RECORDER_SCENARIO` environment variable.
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
