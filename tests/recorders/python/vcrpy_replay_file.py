"""vcrpy replays a cassette as it stands: every request it holds is sent again, in order,
through `urllib.request` inside `vcr.use_cassette(path, record_mode="none")`, and each answer
must be the body the cassette recorded. A cassette vcrpy cannot load, or a request it cannot
match (a scrub that broke its own matching), fails. Used by tests whose cassettes are written
by hand rather than recorded (issue 43: each scrubbed cassette replayed by its recorder).

Usage: vcrpy_replay_file.py CASSETTE.yaml
Prints one line per interaction; exit 0 when all were played, 1 otherwise.
"""

import sys
import urllib.request

import vcr
from vcr.serializers import yamlserializer
from vcr.persisters.filesystem import FilesystemPersister


def main(path):
    requests, responses = FilesystemPersister.load_cassette(path, yamlserializer)
    failed = 0
    with vcr.use_cassette(path, record_mode="none", allow_playback_repeats=False) as cassette:
        for i, (request, response) in enumerate(zip(requests, responses)):
            body = request.body
            req = urllib.request.Request(request.uri, data=body, method=request.method)
            for name, value in request.headers.items():
                req.add_header(name, value if isinstance(value, str) else value[0])
            try:
                with urllib.request.urlopen(req) as answer:
                    got = answer.read()
            except urllib.error.HTTPError as e:
                got = e.read()
            except Exception as e:  # a request the cassette cannot answer
                print(f"interaction {i}: not played: {type(e).__name__}: {e}")
                failed += 1
                continue
            want = response["body"]["string"]
            if isinstance(want, str):
                want = want.encode("utf-8")
            if got != want:
                print(f"interaction {i}: played a different body ({len(got)} bytes, recorded {len(want)})")
                failed += 1
            else:
                print(f"interaction {i}: played")
        if not cassette.all_played:
            print("not every interaction was played")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
