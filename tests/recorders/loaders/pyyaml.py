"""PyYAML as vcrpy uses it, for tests/common/loaders.rs.

    pyyaml.py load   paths on stdin, one a line; prints a JSON array: {"ok": data} or
                     {"error": message} per file
    pyyaml.py dump   a JSON array of {"path", "data"} on stdin; writes each with yaml.dump and
                     the CDumper (as vcrpy does), {"$binary": base64} as bytes

Loading uses the CLoader, as vcrpy does, but keeps `!!python/...` tags as data
({"$tag": tag, "value": ...}) instead of running them. `!!binary` is {"$binary": base64},
dates and times {"$timestamp": text}, NaN and infinities {"$float": text}, a mapping with keys
that are not strings {"$map": [[key, value], ...]}.
"""
import base64
import datetime
import json
import math
import sys

import yaml

Loader = getattr(yaml, "CLoader", yaml.Loader)
Dumper = getattr(yaml, "CDumper", yaml.Dumper)


class DataLoader(Loader):
    pass


def python_tag(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return {"$tag": "tag:yaml.org,2002:python/" + suffix, "value": value}


DataLoader.add_multi_constructor("tag:yaml.org,2002:python/", python_tag)


def plain(value):
    if isinstance(value, bytes):
        return {"$binary": base64.b64encode(value).decode()}
    if isinstance(value, (datetime.date, datetime.datetime)):
        return {"$timestamp": str(value)}
    if isinstance(value, float) and not math.isfinite(value):
        return {"$float": repr(value)}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: plain(v) for k, v in value.items()}
        return {"$map": [[plain(k), plain(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def unplain(value):
    if isinstance(value, dict):
        if set(value) == {"$binary"}:
            return base64.b64decode(value["$binary"])
        return {k: unplain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unplain(v) for v in value]
    return value


def main():
    if sys.argv[1] == "load":
        out = []
        for path in sys.stdin.read().splitlines():
            try:
                with open(path) as f:
                    out.append({"ok": plain(yaml.load(f.read(), Loader=DataLoader))})
            except Exception as e:  # noqa: BLE001 - every failure is reported as data
                out.append({"error": f"{type(e).__name__}: {e}"})
        json.dump(out, sys.stdout)
    else:
        for item in json.load(sys.stdin):
            with open(item["path"], "w") as f:
                f.write(yaml.dump(unplain(item["data"]), Dumper=Dumper))


main()
