// Evaluates the webhooks' matchConditions (CEL) over admission requests, for
// tests/integration/match_conditions_test.cc, with @bufbuild/cel (a CEL evaluator that passes the
// CEL conformance suite; installed into MODULES_DIR by tools/install-cel.sh).
//
// Usage: node evaluate.cjs MODULES_DIR INPUT.json OUTPUT.json
//   INPUT:  {"expressions": {NAME: CEL, ...},
//            "cases": [{"id": ID, "expressions": [NAME, ...],
//                       "bindings": {"object": ..., "oldObject": ..., "request": ...}}, ...]}
//   OUTPUT: {"results": [{"id": ID, "values": {NAME: true | false | "error: ..."}}, ...]}
// JSON objects become CEL maps, integers CEL ints, as the API server's unstructured objects do.
"use strict";

const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");

const [modulesDir, inputFile, outputFile] = process.argv.slice(2);
const { celEnv, parse, plan, isCelError } = createRequire(path.join(modulesDir, "resolve.cjs"))(
  "@bufbuild/cel",
);

function toCel(value) {
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === "object") {
    return new Map(Object.entries(value).map(([k, v]) => [k, toCel(v)]));
  }
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  return value;
}

const input = JSON.parse(fs.readFileSync(inputFile, "utf8"));
const programs = {};
for (const [name, expression] of Object.entries(input.expressions)) {
  try {
    programs[name] = plan(celEnv(), parse(expression));
  } catch (e) {
    programs[name] = { error: "does not parse: " + e.message };
  }
}
const results = input.cases.map((c) => {
  const bindings = {};
  for (const [name, value] of Object.entries(c.bindings)) bindings[name] = toCel(value);
  const values = {};
  for (const name of c.expressions) {
    const program = programs[name];
    if (program.error) {
      values[name] = "error: " + program.error;
      continue;
    }
    try {
      const out = program(bindings);
      values[name] = isCelError(out) ? "error: " + out.message : out;
    } catch (e) {
      values[name] = "error: " + e.message;
    }
  }
  return { id: c.id, values };
});
fs.writeFileSync(outputFile, JSON.stringify({ results }));
