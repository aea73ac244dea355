"""Strict readers for the cassettes of recorders that cannot run here, for
tests/common/strict_loaders.rs: what a recorder's own loader takes, a strict reader takes too.

    strict.py   paths on stdin, one a line; prints a JSON array: {"ok": data} or
                {"error": message} per file

JSON goes through `json.loads` (no trailing commas, no comments, no NaN); YAML through PyYAML's
`safe_load_all` (a stream of documents, as httpmock writes, is a list of them; one document is
itself), with a local tag such as OkReplay's `!tape` read as the plain node it tags. A `.gz`
file is inflated first. Bytes (`!!binary`) come back as {"$binary": base64}, dates and times
as {"$timestamp": text}.
"""
import base64
import datetime
import gzip
import json
import sys

import yaml


class Loader(yaml.SafeLoader):
    pass


def local_tag(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)


Loader.add_multi_constructor("!", local_tag)


def plain(value):
    if isinstance(value, bytes):
        return {"$binary": base64.b64encode(value).decode()}
    if isinstance(value, (datetime.date, datetime.datetime)):
        return {"$timestamp": str(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def no_constant(name):
    raise ValueError(f"{name} is not JSON")


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    text = data.decode("utf-8")
    if text.lstrip()[:1] in ("{", "["):
        return json.loads(text, parse_constant=no_constant)
    documents = list(yaml.load_all(text, Loader=Loader))
    return documents[0] if len(documents) == 1 else documents


out = []
for path in sys.stdin.read().splitlines():
    if not path:
        continue
    try:
        out.append({"ok": plain(load(path))})
    except Exception as e:  # every failure is the answer for that file
        out.append({"error": f"{type(e).__name__}: {e}"})
json.dump(out, sys.stdout)
