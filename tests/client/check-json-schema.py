#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Validates nvprofilectl --json documents against client/json-schemas.

  check-json-schema.py SCHEMA_DIR < OUTPUT
  check-json-schema.py --schemas SCHEMA_DIR SOURCE_FILE_OR_FOLDER...

OUTPUT holds one or more documents (top and monitor print one per sample or event); each names its
schema ("io.github.nvprofiled.NAME" is SCHEMA_DIR/NAME.json) and schema_version, and must be valid
against it. Exit status 0 when every document is, 1 (each problem on stderr, with its JSON path)
otherwise, 2 for no document at all.

With --schemas, the schemas themselves: every file uses only the subset below, each $ref resolves, each
names its own schema and version 1, and the schemas the SOURCE files print (json_print_document("NAME",
..., or "schema": "io.github.nvprofiled.NAME") are exactly the files there.

The schemas use a subset of JSON Schema 2020-12, all of it checked here with the standard library
only: type (a name or a list), const, enum, properties, required, additionalProperties (false or a
schema), items, oneOf, minimum and $ref to "#/$defs/NAME" or "FILE.json#/$defs/NAME". A keyword
outside that subset is an error, so a schema cannot say more than this checks.
"""

import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List

PREFIX = "io.github.nvprofiled."
KNOWN = {"$schema", "$id", "$defs", "title", "description", "type", "const", "enum", "properties",
         "required", "additionalProperties", "items", "oneOf", "minimum", "$ref"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class Validator:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.files: Dict[str, Dict[str, Any]] = {}

    def load(self, name: str) -> Dict[str, Any]:
        if name not in self.files:
            self.files[name] = json.loads((self.directory / name).read_text())
        return self.files[name]

    def resolve(self, ref: str, current: str) -> "tuple[Dict[str, Any], str]":
        file, _, pointer = ref.partition("#")
        file = file or current
        node: Any = self.load(file)
        for part in filter(None, pointer.split("/")):
            node = node[part]
        return node, file

    def validate(self, value: Any, schema: Dict[str, Any], file: str, path: str) -> List[str]:
        unknown = set(schema) - KNOWN
        if unknown:
            return [f"{file}: keywords this checker does not know: {sorted(unknown)}"]
        if "$ref" in schema:
            target, target_file = self.resolve(schema["$ref"], file)
            return self.validate(value, target, target_file, path)
        errors: List[str] = []
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(TYPES[t](value) for t in types):
                return [f"{path}: {json.dumps(value)[:60]} is not {' or '.join(types)}"]
        if "const" in schema and value != schema["const"]:
            errors.append(f"{path}: {json.dumps(value)[:60]}, not {json.dumps(schema['const'])}")
        if "enum" in schema and value not in schema["enum"]:
            errors.append(f"{path}: {json.dumps(value)[:60]} is none of {schema['enum']}")
        if "minimum" in schema and TYPES["number"](value) and value < schema["minimum"]:
            errors.append(f"{path}: {value} is below {schema['minimum']}")
        if "oneOf" in schema:
            results = [self.validate(value, s, file, path) for s in schema["oneOf"]]
            matches = sum(1 for r in results if not r)
            if matches != 1:
                errors.append(f"{path}: matches {matches} of the oneOf alternatives, not 1")
            if matches == 0:  # the nearest alternative's problems say what is wrong
                errors += min(results, key=len)
        if isinstance(value, dict):
            properties = schema.get("properties", {})
            for key in schema.get("required", []):
                if key not in value:
                    errors.append(f"{path}: no member \"{key}\" (an unknown value is null, not absent)")
            for key, member in value.items():
                if key in properties:
                    errors += self.validate(member, properties[key], file, f"{path}.{key}")
                elif schema.get("additionalProperties") is False:
                    errors.append(f"{path}: member \"{key}\" is not in the schema")
                elif isinstance(schema.get("additionalProperties"), dict):
                    errors += self.validate(member, schema["additionalProperties"], file, f"{path}.{key}")
        if isinstance(value, list) and "items" in schema:
            for i, item in enumerate(value):
                errors += self.validate(item, schema["items"], file, f"{path}[{i}]")
        return errors

    def document(self, doc: Any) -> List[str]:
        if not isinstance(doc, dict) or not isinstance(doc.get("schema"), str):
            return ["$: not an object with a \"schema\" member"]
        name = doc["schema"]
        if not name.startswith(PREFIX) or "/" in name:
            return [f"$.schema: {name!r} is not one of ours ({PREFIX}NAME)"]
        file = name[len(PREFIX):] + ".json"
        if not (self.directory / file).is_file():
            return [f"$.schema: {name!r} has no schema file {file}"]
        return [f"{name}: {e}" for e in self.validate(doc, self.load(file), file, "$")]


def check_schemas(directory: Path, sources: List[str]) -> List[str]:
    validator = Validator(directory)
    errors: List[str] = []

    def walk(node: Any, file: str, where: str) -> None:
        if isinstance(node, dict):
            unknown = set(node) - KNOWN
            if unknown and not where.endswith(("/properties", "/$defs")):
                errors.append(f"{file}{where}: keywords this checker does not know: {sorted(unknown)}")
            if isinstance(node.get("$ref"), str):
                try:
                    validator.resolve(node["$ref"], file)
                except (KeyError, OSError) as e:
                    errors.append(f"{file}{where}: $ref {node['$ref']} does not resolve ({e})")
            for key, value in node.items():
                walk(value, file, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, file, f"{where}/{i}")

    files = sorted(p.name for p in directory.glob("*.json"))
    for file in files:
        schema = validator.load(file)
        walk(schema, file, "")
        properties = schema.get("properties", {})
        if "oneOf" in schema:  # one alternative per kind of line
            properties = schema["oneOf"][0].get("properties", {})
        if properties.get("schema") != {"const": PREFIX + file[:-len(".json")]}:
            errors.append(f"{file}: its schema member is not {PREFIX}{file[:-len('.json')]}")
        if properties.get("schema_version") != {"const": 1}:
            errors.append(f"{file}: its schema_version is not 1")
    printed = set()
    paths = [p for s in map(Path, sources)
             for p in ([s] if s.is_file() else sorted(s.rglob("*.[ch]")) + sorted(s.rglob("*.py")))]
    for path in paths:
        text = path.read_text(errors="replace")
        printed |= set(re.findall(r'json_print_document\(\s*"([a-z-]+)"', text))
        printed |= set(re.findall(re.escape(PREFIX) + r'([a-z-]+)"', text))
    for name in sorted(printed - {f[:-len(".json")] for f in files}):
        errors.append(f"{name}: printed, but there is no {name}.json")
    for name in sorted({f[:-len(".json")] for f in files} - printed):
        errors.append(f"{name}.json: no source prints it")
    return errors


def documents(text: str) -> List[Any]:
    decoder = json.JSONDecoder()
    out, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return out
        doc, i = decoder.raw_decode(text, i)
        out.append(doc)


def main() -> int:
    if len(sys.argv) >= 3 and sys.argv[1] == "--schemas":
        errors = check_schemas(Path(sys.argv[2]), sys.argv[3:])
        for e in errors:
            print(e, file=sys.stderr)
        return 1 if errors else 0
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    validator = Validator(Path(sys.argv[1]))
    try:
        docs = documents(sys.stdin.read())
    except json.JSONDecodeError as e:
        print(f"not JSON: {e}", file=sys.stderr)
        return 1
    if not docs:
        print("no document", file=sys.stderr)
        return 2
    errors = [e for doc in docs for e in validator.document(doc)]
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
