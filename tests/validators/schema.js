// Validates JSON documents against a JSON Schema (draft 2020-12) with ajv, strict:
//   node schema.js SCHEMA DOCUMENT...
// Prints one line per document that fails, with ajv's errors, and exits 1 if any did.
"use strict";
const fs = require("fs");
const Ajv2020 = require("ajv/dist/2020").default;

const [schemaPath, ...documents] = process.argv.slice(2);
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, "utf8")));
let failed = 0;
for (const path of documents) {
  let document;
  try {
    document = JSON.parse(fs.readFileSync(path, "utf8"));
  } catch (e) {
    console.log(`${path}: not JSON: ${e.message}`);
    failed++;
    continue;
  }
  if (!validate(document)) {
    failed++;
    console.log(`${path}: ${ajv.errorsText(validate.errors, { separator: "; " })}`);
  }
}
console.log(`${documents.length - failed} valid, ${failed} invalid`);
process.exit(failed ? 1 : 0);
