/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Fails the test unless text (one or more nvprofilectl --json documents) is valid against the schema each
 * names, in client/json-schemas: tests/client/check-json-schema.py says why not. The paths come from
 * NVPROFILED_JSON_SCHEMAS and NVPROFILED_JSON_SCHEMA_CHECK (tests/client/meson.build). */
void assert_json_valid(const char *text);
