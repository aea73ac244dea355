// JSON.parse and JSON.stringify, for tests/common/loaders.rs.
//
//   node json.js load   paths on stdin, one a line; prints a JSON array: {"ok": data} or
//                       {"error": message} per file
//   node json.js dump   a JSON array of {"path", "data"} on stdin; writes each with
//                       JSON.stringify(data, null, 2)
"use strict";
const fs = require("fs");

const input = fs.readFileSync(0, "utf8");
if (process.argv[2] === "load") {
    const out = input
        .split("\n")
        .filter((line) => line !== "")
        .map((path) => {
            try {
                return { ok: JSON.parse(fs.readFileSync(path, "utf8")) };
            } catch (e) {
                return { error: String(e) };
            }
        });
    process.stdout.write(JSON.stringify(out));
} else {
    for (const item of JSON.parse(input)) {
        fs.writeFileSync(item.path, JSON.stringify(item.data, null, 2));
    }
}
