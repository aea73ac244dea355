"""The scenario every Python recorder test performs.

A scenario file (written by the Rust test, see tests/common/scenario.rs) names the server's
base URL and lists the requests, each with the answer the client must see. `run` sends them
in order and returns what went wrong: a request that fails, or an answer that differs from
what the server sends (in record mode the server answers; in replay mode the cassette does).

Two clients: `requests` (urllib3, which vcrpy records after it has undone a gzip body) and
the standard library's `urllib.request` (http.client, which vcrpy records as sent, so a gzip
body becomes a `!!binary` scalar).
"""

import gzip
import json
import sys
import urllib.error
import urllib.request

import requests


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def with_requests(url, r, body):
    response = requests.request(r["method"], url, headers=dict(r["headers"]), data=body, timeout=10)
    return response.status_code, response.headers, response.content


def with_urllib(url, r, body):
    request = urllib.request.Request(url, data=body, headers=dict(r["headers"]), method=r["method"])
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as e:  # an error status is an answer too (a 429 recorded)
        with e:
            return e.code, e.headers, e.read()


def run(scenario, send=with_requests):
    problems = []
    for r in scenario["requests"]:
        body = None if r["body"] is None else r["body"].encode("utf-8")
        try:
            answer = send(scenario["base"] + r["target"], r, body)
        except Exception as e:  # vcrpy's "cannot overwrite" is no client error
            problems.append(f"{r['name']}: {type(e).__name__}: {e}")
            continue
        problems += check(r, *answer)
    return problems


def check(r, status, headers, content):
    """The differences between an answer and what `r` expects."""
    expect = r["expect"]
    problems = []
    if status != expect["status"]:
        problems.append(f"{r['name']}: status {status}, expected {expect['status']}")
    for name, value in expect["headers"].items():
        if headers.get(name) != value:
            problems.append(f"{r['name']}: header {name} is {headers.get(name)!r}, expected {value!r}")
    if content[:2] == b"\x1f\x8b":  # still gzip: the client did not undo it
        content = gzip.decompress(content)
    if content.decode("utf-8") != expect["body"]:
        problems.append(f"{r['name']}: body {content!r}, expected {expect['body']!r}")
    return problems


def report(problems):
    """Prints the problems on stderr; returns the exit code."""
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0
